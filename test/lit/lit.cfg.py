# lit configuration of the gdr dialect tests: gdr-opt + FileCheck.
import os
import lit.formats

config.name = "gdr"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gdr_binary_dir, "test", "lit")
config.substitutions.append(("gdr-opt", config.gdr_opt))
config.substitutions.append(("FileCheck", config.filecheck))
# Substitutions are regular expressions: `not` as a command word only, not
# inside FileCheck's --implicit-check-not.
config.substitutions.append((r"(?<![-\w])not(?![-\w])", config.not_tool))
