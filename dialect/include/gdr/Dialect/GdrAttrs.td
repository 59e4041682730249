// Attributes of the gdr dialect: the problem, the schedule and the target.
#ifndef GDR_ATTRS_TD
#define GDR_ATTRS_TD

include "gdr/Dialect/GdrDialect.td"

class Gdr_Attr<string name, string attrMnemonic> : AttrDef<Gdr_Dialect, name> {
  let mnemonic = attrMnemonic;
  // Parsed and printed by hand (GdrAttrs.cpp): keys may come in any order
  // and optional keys take their defaults.
  let genVerifyDecl = 1;
}

def Gdr_ProblemAttr : Gdr_Attr<"Problem", "problem"> {
  let summary = "What a kernel computes: sizes, element type, gate and route";
  let description = [{
    The state of one head is K x V. `gate` is how decay is given:
    `channelwise` (one factor per key channel and token) or `scalar` (one per
    token, broadcast over K). `readouts` is the number of query heads that
    read each state head (grouped readout; default 1, printed only when
    set). `route` is `recurrent` (token-by-token, decode and short
    sequences), `chunked` (WY prefill) or `auto` (gdr's compiler chooses per call;
    gdr-opt lowers `recurrent` kernels only).
    Only `f32` is supported.

    ```mlir
    #gdr.problem<k = 128, v = 128, element_type = f32, gate = channelwise, route = recurrent>
    #gdr.problem<k = 128, v = 128, element_type = f32, gate = scalar, readouts = 2, route = recurrent>
    ```
  }];
  let parameters = (ins "int64_t":$k, "int64_t":$v, "::mlir::Type":$elementType,
                        StringRefParameter<"gate">:$gate, "int64_t":$readouts,
                        StringRefParameter<"route">:$route);
}

def Gdr_ScheduleAttr : Gdr_Attr<"Schedule", "schedule"> {
  let summary = "How the recurrent route is computed";
  let description = [{
    `vector_width`: float lanes per vector (a power of two, at most the
    target's vector register). `v_tile`: state columns one sweep keeps in
    registers (a multiple of `vector_width`); the kernel runs a block of
    tokens (128, or 64 with token-major rows) on one tile while it stays in
    cache. `unroll`: rows of the state handled per iteration of the loop
    over K (default 1). `prefetch`: how many tokens ahead each token's beta,
    value columns and output columns are prefetched, except in a block's
    last group (default 0: none; printed only when set); key, query and
    decay rows are prefetched a block ahead whatever it says.
    `sweep_tokens`: tokens one sweep of the tile updates, 1 or 2 (default 2:
    a pair; printed only when 1). A pair loads and stores the tile once for
    two tokens but keeps twice the accumulators in registers.

    ```mlir
    #gdr.schedule<vector_width = 16, v_tile = 128, unroll = 2, prefetch = 2>
    #gdr.schedule<vector_width = 8, v_tile = 32, unroll = 1, sweep_tokens = 1>
    ```
  }];
  let parameters = (ins "int64_t":$vectorWidth, "int64_t":$vTile, "int64_t":$unroll,
                        "int64_t":$prefetch, "int64_t":$sweepTokens);
}

def Gdr_TargetAttr : Gdr_Attr<"Target", "target"> {
  let summary = "The CPU a kernel is generated for";
  let description = [{
    `cpu` is LLVM's CPU name; `vector_bits` the widest vector register the
    kernel may use (512 with AVX-512, 256 with AVX2). Schedules wider than
    the target are rejected. `vector_registers` (16 or 32) is how many such
    registers the CPU has; by default 16 at 256 bits (x86's alone) and for
    an x86 CPU name at 128, else 32 (AVX-512, NEON, and "generic" at 128
    bits), and printed only when it differs (an x86 triple with CPU
    "generic" at 128 bits says 16).

    ```mlir
    #gdr.target<cpu = "icelake-client", vector_bits = 512>
    #gdr.target<cpu = "generic", vector_bits = 128, vector_registers = 16>
    ```
  }];
  let parameters = (ins StringRefParameter<"cpu">:$cpu, "int64_t":$vectorBits,
                        "int64_t":$vectorRegisters);
}

#endif  // GDR_ATTRS_TD
