// Operations of the gdr dialect.
#ifndef GDR_OPS_TD
#define GDR_OPS_TD

include "gdr/Dialect/GdrAttrs.td"
include "mlir/IR/SymbolInterfaces.td"

def Gdr_KernelOp : Gdr_Op<"kernel", [Symbol]> {
  let summary = "A kernel to generate, with the C ABI of gdr_kernel_fn";
  let description = [{
    Declares a kernel named by its symbol that computes `problem` for a range
    of heads and a range of value columns (runtime/include/gdr/kernel_abi.h).
    T is a run-time value; K and V are fixed by the problem. The optional
    `schedule` says how (required by the lowering passes) and the optional
    `target` which CPU the schedule must fit.

    ```mlir
    gdr.kernel @gdr_recurrent_f32_k128_v128__w16_vt64_u1
        problem <k = 128, v = 128, element_type = f32, gate = channelwise, route = recurrent>
        schedule <vector_width = 16, v_tile = 64, unroll = 1>
        target <cpu = "icelake-client", vector_bits = 512>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Gdr_ProblemAttr:$problem,
                       OptionalAttr<Gdr_ScheduleAttr>:$schedule,
                       OptionalAttr<Gdr_TargetAttr>:$target);
  let assemblyFormat = [{
    $sym_name `problem` $problem (`schedule` $schedule^)? (`target` $target^)? attr-dict
  }];
  let verifier = [{ return ::mlir::gdr::verifyKernel(*this); }];
}

#endif  // GDR_OPS_TD
