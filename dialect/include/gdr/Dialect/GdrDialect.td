// The gdr dialect: kernels for the channelwise gated delta rule.
#ifndef GDR_DIALECT_TD
#define GDR_DIALECT_TD

include "mlir/IR/OpBase.td"

def Gdr_Dialect : Dialect {
  let name = "gdr";
  let cppNamespace = "::mlir::gdr";
  let summary = "Kernels computing the channelwise gated delta rule";
  let description = [{
    A `gdr` module describes the kernels to generate. Each `gdr.kernel`
    carries the problem it solves (`#gdr.problem`: K, V, element type, gate
    and route) and, once a schedule has been chosen, how to compute it
    (`#gdr.schedule`: vector width, V-tile, unrolling). The schedule is data
    in the IR: `gdr-attach-schedule` writes it, lowering passes only read it.

    ```mlir
    gdr.kernel @gdr_recurrent_f32_k128_v128__w16_vt64_u1
        problem <k = 128, v = 128, element_type = f32, gate = channelwise, route = recurrent>
        schedule <vector_width = 16, v_tile = 64, unroll = 1>
    ```
  }];
  let useDefaultAttributePrinterParser = 1;
  // Attribute storage classes are only visible in GdrAttrs.cpp.
  let extraClassDeclaration = [{ void registerAttributes(); }];
  let emitAccessorPrefix = kEmitAccessorPrefix_Prefixed;
}

class Gdr_Op<string mnemonic, list<Trait> traits = []>
    : Op<Gdr_Dialect, mnemonic, traits>;

#endif  // GDR_DIALECT_TD
