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
config.substitutions.append(("not", config.not_tool))
