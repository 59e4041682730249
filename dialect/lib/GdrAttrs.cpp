// The attributes' textual form `<key = value, ...>` and their verifiers.
// Keys may come in any order; a verifier names the key it rejects.
#include <functional>
#include <map>

#include <llvm/ADT/StringExtras.h>
#include <llvm/ADT/TypeSwitch.h>
#include <mlir/IR/Builders.h>
#include <mlir/IR/DialectImplementation.h>

#include "gdr/Dialect/DefaultSchedule.h"
#include "gdr/Dialect/GdrDialect.h"
#include "gdr/Dialect/Limits.h"

using namespace mlir;
using namespace mlir::gdr;

#define GET_ATTRDEF_CLASSES
#include "gdr/Dialect/GdrAttrs.cpp.inc"

void GdrDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "gdr/Dialect/GdrAttrs.cpp.inc"
      >();
}

namespace {

using KeyParser = std::function<ParseResult(AsmParser&)>;

// Parses `<key = value (, key = value)*>`, each key once, calling its parser
// on the value. `required` keys must be present.
ParseResult parseKeyValues(AsmParser& parser, StringRef attr,
                           const std::map<std::string, KeyParser>& keys,
                           const std::vector<std::string>& required) {
  if (parser.parseLess()) return failure();
  std::map<std::string, bool> seen;
  do {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key)) return failure();
    auto it = keys.find(key.str());
    if (it == keys.end())
      return parser.emitError(loc) << "unknown key '" << key << "' in #gdr." << attr;
    if (seen[key.str()])
      return parser.emitError(loc) << "key '" << key << "' given twice in #gdr." << attr;
    seen[key.str()] = true;
    if (parser.parseEqual() || it->second(parser)) return failure();
  } while (succeeded(parser.parseOptionalComma()));
  SMLoc end = parser.getCurrentLocation();
  if (parser.parseGreater()) return failure();
  for (const std::string& key : required)
    if (!seen[key]) return parser.emitError(end) << "#gdr." << attr << " needs '" << key << "'";
  return success();
}

KeyParser integer(int64_t* value) {
  return [value](AsmParser& p) { return p.parseInteger(*value); };
}
KeyParser keyword(std::string* value) {
  return [value](AsmParser& p) {
    StringRef word;
    if (p.parseKeyword(&word)) return failure();
    *value = word.str();
    return success();
  };
}
KeyParser string(std::string* value) {
  return [value](AsmParser& p) { return p.parseString(value); };
}

bool isPowerOfTwo(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

}  // namespace

// ---- #gdr.problem --------------------------------------------------------

Attribute ProblemAttr::parse(AsmParser& parser, Type) {
  int64_t k = 0, v = 0, readouts = 1;
  Type elementType;
  std::string gate = "channelwise", route = "auto";
  SMLoc loc = parser.getCurrentLocation();
  if (parseKeyValues(parser, "problem",
                     {{"k", integer(&k)},
                      {"v", integer(&v)},
                      {"element_type", [&](AsmParser& p) { return p.parseType(elementType); }},
                      {"gate", keyword(&gate)},
                      {"readouts", integer(&readouts)},
                      {"route", keyword(&route)}},
                     {"k", "v", "element_type"}))
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(), k, v,
                    elementType, gate, readouts, route);
}

void ProblemAttr::print(AsmPrinter& printer) const {
  printer << "<k = " << getK() << ", v = " << getV() << ", element_type = " << getElementType()
          << ", gate = " << getGate();
  if (getReadouts() != 1) printer << ", readouts = " << getReadouts();
  printer << ", route = " << getRoute() << ">";
}

LogicalResult ProblemAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t k,
                                  int64_t v, Type elementType, StringRef gate, int64_t readouts,
                                  StringRef route) {
  if (k <= 0) return emitError() << "#gdr.problem 'k' must be positive, got " << k;
  if (v <= 0) return emitError() << "#gdr.problem 'v' must be positive, got " << v;
  if (k > kMaxHeadSize || v > kMaxHeadSize)
    return emitError() << "#gdr.problem 'k' and 'v' must be at most " << kMaxHeadSize << ", got k = "
                       << k << ", v = " << v;
  if (route == "recurrent" && k > kMaxRecurrentK)
    return emitError() << "#gdr.problem 'k' must be at most " << kMaxRecurrentK
                       << " for route recurrent (its code is unrolled over K), got " << k;
  if (!elementType || !elementType.isF32())
    return emitError() << "#gdr.problem 'element_type' must be f32, got " << elementType;
  if (gate != "channelwise" && gate != "scalar")
    return emitError() << "#gdr.problem 'gate' must be channelwise or scalar, got " << gate;
  if (readouts < 1 || readouts > kMaxReadouts)
    return emitError() << "#gdr.problem 'readouts' must be from 1 to " << kMaxReadouts << ", got "
                       << readouts;
  if (route != "auto" && route != "recurrent" && route != "chunked")
    return emitError() << "#gdr.problem 'route' must be auto, recurrent or chunked, got "
                       << route;
  return success();
}

// ---- #gdr.schedule -------------------------------------------------------

Attribute ScheduleAttr::parse(AsmParser& parser, Type) {
  int64_t width = 0, tile = 0, unroll = 1, prefetch = 0, sweepTokens = 2;
  SMLoc loc = parser.getCurrentLocation();
  if (parseKeyValues(parser, "schedule",
                     {{"vector_width", integer(&width)},
                      {"v_tile", integer(&tile)},
                      {"unroll", integer(&unroll)},
                      {"prefetch", integer(&prefetch)},
                      {"sweep_tokens", integer(&sweepTokens)}},
                     {"vector_width", "v_tile"}))
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(), width, tile,
                    unroll, prefetch, sweepTokens);
}

void ScheduleAttr::print(AsmPrinter& printer) const {
  printer << "<vector_width = " << getVectorWidth() << ", v_tile = " << getVTile()
          << ", unroll = " << getUnroll();
  if (getPrefetch() != 0) printer << ", prefetch = " << getPrefetch();
  if (getSweepTokens() != 2) printer << ", sweep_tokens = " << getSweepTokens();
  printer << ">";
}

LogicalResult ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t vectorWidth, int64_t vTile, int64_t unroll,
                                   int64_t prefetch, int64_t sweepTokens) {
  // 16 float lanes is the widest vector of any x86 target (AVX-512).
  if (!isPowerOfTwo(vectorWidth) || vectorWidth > 16)
    return emitError() << "#gdr.schedule 'vector_width' must be a power of two from 1 to 16, got "
                       << vectorWidth;
  if (vTile <= 0 || vTile % vectorWidth != 0)
    return emitError() << "#gdr.schedule 'v_tile' must be a positive multiple of vector_width ("
                       << vectorWidth << "), got " << vTile;
  // v_tile / vector_width vectors live in registers twice (two accumulators).
  if (vTile / vectorWidth > 16)
    return emitError() << "#gdr.schedule 'v_tile' must be at most 16 vectors ("
                       << 16 * vectorWidth << " columns), got " << vTile;
  if (unroll < 1 || unroll > 16)
    return emitError() << "#gdr.schedule 'unroll' must be from 1 to 16, got " << unroll;
  if (prefetch < 0 || prefetch > 64)
    return emitError() << "#gdr.schedule 'prefetch' must be from 0 to 64 tokens, got " << prefetch;
  if (sweepTokens != 1 && sweepTokens != 2)
    return emitError() << "#gdr.schedule 'sweep_tokens' must be 1 or 2, got " << sweepTokens;
  return success();
}

// ---- #gdr.target ---------------------------------------------------------

Attribute TargetAttr::parse(AsmParser& parser, Type) {
  std::string cpu;
  int64_t bits = 0, registers = 0;
  bool registers_given = false;
  SMLoc loc = parser.getCurrentLocation();
  if (parseKeyValues(parser, "target",
                     {{"cpu", string(&cpu)},
                      {"vector_bits", integer(&bits)},
                      {"vector_registers",
                       [&](AsmParser& p) {
                         registers_given = true;
                         return p.parseInteger(registers);
                       }}},
                     {"cpu", "vector_bits"}))
    return {};
  if (!registers_given) registers = vectorRegisters(bits, StringRef(cpu));
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(), cpu, bits, registers);
}

void TargetAttr::print(AsmPrinter& printer) const {
  // Escaped: a CPU name with a quote must read back.
  printer << "<cpu = \"";
  llvm::printEscapedString(getCpu(), printer.getStream());
  printer << "\", vector_bits = " << getVectorBits();
  if (getVectorRegisters() != vectorRegisters(getVectorBits(), getCpu()))
    printer << ", vector_registers = " << getVectorRegisters();
  printer << ">";
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef cpu,
                                 int64_t vectorBits, int64_t vectorRegisters) {
  if (cpu.empty()) return emitError() << "#gdr.target 'cpu' must not be empty";
  if (vectorBits != 128 && vectorBits != 256 && vectorBits != 512)
    return emitError() << "#gdr.target 'vector_bits' must be 128, 256 or 512, got " << vectorBits;
  if (vectorRegisters != 16 && vectorRegisters != 32)
    return emitError() << "#gdr.target 'vector_registers' must be 16 or 32, got " << vectorRegisters;
  return success();
}
