#include "svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace gdr::tune::svg {

namespace {

// Plot area inside the image: room for the y ticks on the left, the legend
// on the right, the title above and the x label below.
constexpr double kWidth = 820, kHeight = 460;
constexpr double kLeft = 80, kRight = 560, kTop = 50, kBottom = 390;

const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

std::string tick_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

std::string text(double x, double y, const std::string& s, const char* anchor = "middle",
                 const char* extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" + extra +
         ">" + escape(s) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& style) {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) +
         "\" " + style + "/>\n";
}

std::string document(const std::string& title, const std::string& body, double height = kHeight) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) + "\" height=\"" +
         num(height) + "\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n"
         "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" +
         text(kWidth / 2, 24, title, "middle", " font-size=\"15\" font-weight=\"bold\"") + body + "</svg>\n";
}

// An axis: maps values to pixels between `lo_px` and `hi_px`, on a linear or
// a log10 scale, with round ticks.
struct Axis {
  double lo, hi;  // in scale units (log10 of the value when log)
  bool log;
  double lo_px, hi_px;

  static Axis fit(double min, double max, bool log, double lo_px, double hi_px) {
    if (log) {
      min = std::log10(min), max = std::log10(max);
      if (max - min < 1e-9) min -= 0.5, max += 0.5;  // one value: a decade around it
      const double pad = 0.05 * (max - min);
      return {min - pad, max + pad, true, lo_px, hi_px};
    }
    if (min > 0) min = 0;  // linear axes start at zero: bars of time read as ratios
    if (max - min < 1e-12) max = min + 1;
    return {min, max * 1.08, false, lo_px, hi_px};
  }
  double px(double value) const {
    const double v = log ? std::log10(value) : value;
    return lo_px + (v - lo) / (hi - lo) * (hi_px - lo_px);
  }
  std::vector<double> ticks() const {
    std::vector<double> out;
    if (log) {
      // Decades, with 2 and 5 between them when there are few decades, and
      // every digit within less than about one.
      const std::vector<double> steps = hi - lo < 1.2 ? std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9}
                                      : hi - lo < 3   ? std::vector<double>{1, 2, 5}
                                                      : std::vector<double>{1};
      for (int e = int(std::floor(lo)); e <= int(std::ceil(hi)); ++e)
        for (double m : steps) {
          const double v = m * std::pow(10.0, e);
          if (std::log10(v) >= lo && std::log10(v) <= hi) out.push_back(v);
        }
      // A range between two digits (per-token times nearly flat in T, 0.101
      // to 0.109 µs) had no tick at all (a review): two near its ends then,
      // with the fewest significant digits that keep them inside it.
      if (out.size() < 2) {
        out.clear();
        for (double at : {lo + 0.1 * (hi - lo), hi - 0.1 * (hi - lo)})
          for (int digits = 2; digits <= 6; ++digits) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.*g", digits, std::pow(10.0, at));
            const double v = std::strtod(buf, nullptr);
            if (std::log10(v) >= lo && std::log10(v) <= hi) {
              out.push_back(v);
              break;
            }
          }
        if (out.size() == 2 && out[0] == out[1]) out.pop_back();
      }
      return out;
    }
    const double raw = (hi - lo) / 6, mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw / mag < 2 ? 2 * mag : raw / mag < 5 ? 5 * mag : 10 * mag;
    for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step)
      out.push_back(std::abs(v) < 1e-12 * step ? 0 : v);
    return out;
  }
};

}  // namespace

std::string escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += ch;
    }
  }
  return out;
}

std::string line_plot(const LinePlot& p) {
  double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min, y_min = x_min, y_max = -x_min;
  for (const Series& s : p.series)
    for (const Point& pt : s.points) {
      x_min = std::min(x_min, pt.x), x_max = std::max(x_max, pt.x);
      y_min = std::min(y_min, pt.y), y_max = std::max(y_max, pt.y);
    }
  if (!(x_min <= x_max)) return document(p.title, text(kWidth / 2, kHeight / 2, p.empty_note));
  if (p.x_min < p.x_max) x_min = std::min(x_min, p.x_min), x_max = std::max(x_max, p.x_max);
  for (const Marker& m : p.vertical) x_min = std::min(x_min, m.at), x_max = std::max(x_max, m.at);
  for (const Marker& m : p.horizontal) y_min = std::min(y_min, m.at), y_max = std::max(y_max, m.at);
  const Axis xa = Axis::fit(x_min, x_max, p.log_x, kLeft, kRight);
  const Axis ya = Axis::fit(y_min, y_max, p.log_y, kBottom, kTop);

  std::string body;
  const std::string grid = "stroke=\"#e0e0e0\" stroke-width=\"1\"";
  // Every tick a grid line; a label only clear of the one before ("80 90100"
  // ran together: a review).
  double last_label = -1e9;
  for (double t : xa.ticks()) {
    body += line(xa.px(t), kTop, xa.px(t), kBottom, grid);
    const std::string label = tick_text(t);
    if (xa.px(t) - last_label < 7.0 * double(label.size()) + 8) continue;
    body += text(xa.px(t), kBottom + 16, label);
    last_label = xa.px(t);
  }
  last_label = 1e9;
  for (double t : ya.ticks()) {
    body += line(kLeft, ya.px(t), kRight, ya.px(t), grid);
    if (last_label - ya.px(t) < 16) continue;
    body += text(kLeft - 6, ya.px(t) + 4, tick_text(t), "end");
    last_label = ya.px(t);
  }
  body += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(kRight - kLeft) +
          "\" height=\"" + num(kBottom - kTop) + "\" fill=\"none\" stroke=\"black\"/>\n";
  body += text((kLeft + kRight) / 2, kBottom + 40, p.x_label + (p.log_x ? " (log scale)" : ""));
  body += text(20, (kTop + kBottom) / 2, p.y_label + (p.log_y ? " (log scale)" : ""), "middle",
               (" transform=\"rotate(-90 20 " + num((kTop + kBottom) / 2) + ")\"").c_str());

  std::vector<double> marker_xs;
  for (const Marker& m : p.vertical) {
    // The label along the line, on its left, reading upwards from the top;
    // next to another marker's, from the bottom on its right instead.
    const double x = xa.px(m.at);
    const bool crowded = std::any_of(marker_xs.begin(), marker_xs.end(), [&](double o) { return std::abs(o - x) < 16; });
    marker_xs.push_back(x);
    const double lx = crowded ? x + 13 : x - 5, ly = crowded ? kBottom - 6 : kTop + 6;
    body += "<g class=\"marker\">" +
            line(x, kTop, x, kBottom,
                 std::string("stroke=\"black\" stroke-width=\"1.5\" stroke-dasharray=\"") +
                     (m.dotted ? "2 2" : "6 3") + "\"") +
            text(lx, ly, m.label, crowded ? "start" : "end",
                 (" transform=\"rotate(-90 " + num(lx) + " " + num(ly) + ")\"").c_str()) +
            "</g>\n";
  }
  // Placed labels (left, right, baseline), to keep the points' apart from
  // them and from each other.
  struct Box {
    double x0, x1, y;
  };
  std::vector<Box> placed;
  for (const Marker& m : p.horizontal) {
    placed.push_back({kRight - 4 - 6.5 * double(m.label.size()), kRight - 4, ya.px(m.at) - 5});
    body += "<g class=\"floor\">" +
            line(kLeft, ya.px(m.at), kRight, ya.px(m.at), "stroke=\"black\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"") +
            text(kRight - 4, ya.px(m.at) - 5, m.label, "end") + "</g>\n";
  }
  double legend_y = kTop + 10;
  for (size_t i = 0; i < p.series.size(); ++i) {
    const Series& s = p.series[i];
    const std::string colour = kColours[i % (sizeof kColours / sizeof *kColours)];
    const std::string dash = s.dashed ? " stroke-dasharray=\"5 3\"" : "";
    std::vector<Point> pts = s.points;
    std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.x < b.x; });
    body += "<g class=\"series\" data-name=\"" + escape(s.name) + "\">\n<polyline fill=\"none\" stroke=\"" + colour +
            "\" stroke-width=\"2\"" + dash + " points=\"";
    for (const Point& pt : pts) body += num(xa.px(pt.x)) + "," + num(ya.px(pt.y)) + " ";
    body += "\"/>\n";
    for (const Point& pt : pts) {
      body += "<circle cx=\"" + num(xa.px(pt.x)) + "\" cy=\"" + num(ya.px(pt.y)) + "\" r=\"3.5\" fill=\"" + colour +
              "\"/>\n";
      if (pt.label.empty()) continue;
      // On the point's right, or its left where it would pass the frame's
      // right edge; at the point's height, else the nearest height (up or
      // down, a line apart) inside the frame where it overlaps no label
      // placed before (a review: labels at T = 4 spilled over the frame
      // and ran together).
      const double width = 6.5 * double(pt.label.size()), px = xa.px(pt.x);
      const bool left = px + 7 + width > kRight;
      const double x0 = left ? px - 7 - width : px + 7, x1 = x0 + width;
      double y = std::clamp(ya.px(pt.y) + 4, kTop + 14, kBottom - 4);
      for (int k = 0; k < 40; ++k) {
        const double at = ya.px(pt.y) + 4 + 13 * ((k + 1) / 2) * (k % 2 ? -1 : 1);
        if (at < kTop + 14 || at > kBottom - 4) continue;
        if (std::none_of(placed.begin(), placed.end(), [&](const Box& b) {
              return b.x0 < x1 && x0 < b.x1 && std::abs(b.y - at) < 13;
            })) {
          y = at;
          break;
        }
      }
      placed.push_back({x0, x1, y});
      body += text(left ? px - 7 : px + 7, y, pt.label, left ? "end" : "start", (" fill=\"" + colour + "\"").c_str());
    }
    body += "</g>\n";
    body += line(kRight + 16, legend_y, kRight + 40, legend_y, "stroke=\"" + colour + "\" stroke-width=\"2\"" + dash);
    body += text(kRight + 46, legend_y + 4, s.name, "start");
    legend_y += 18;
  }
  return document(p.title, body);
}

std::string heat_map(const HeatMap& m) {
  if (m.panels.empty()) return document(m.title, text(kWidth / 2, kHeight / 2, m.empty_note));
  // Panels side by side, up to two per row; a cell's text in lines.
  const size_t per_row = std::min<size_t>(2, m.panels.size());
  const double panel_w = (kWidth - 40) / per_row, cell_h = 40;
  const double grid_w = panel_w - 90, grid_h = cell_h * m.rows.size();
  const double panel_h = grid_h + 90;
  const size_t panel_rows = (m.panels.size() + per_row - 1) / per_row;
  const double height = 70 + panel_rows * panel_h;
  std::string body;
  for (size_t p = 0; p < m.panels.size(); ++p) {
    const HeatPanel& panel = m.panels[p];
    const double x0 = 20 + (p % per_row) * panel_w + 70, y0 = 70 + (p / per_row) * panel_h + 24;
    const double cell_w = grid_w / m.columns.size();
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto& row : panel.values)
      for (double v : row)
        if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    body += "<g class=\"panel\">\n" + text(x0 + grid_w / 2, y0 - 8, panel.title, "middle", " font-weight=\"bold\"");
    for (size_t r = 0; r < m.rows.size(); ++r) {
      body += text(x0 - 6, y0 + (r + 0.5) * cell_h + 4, m.rows[r], "end");
      for (size_t c = 0; c < m.columns.size(); ++c) {
        const double v = r < panel.values.size() && c < panel.values[r].size()
                             ? panel.values[r][c] : std::numeric_limits<double>::quiet_NaN();
        const double x = x0 + c * cell_w, y = y0 + r * cell_h;
        std::string fill = "#f4f4f4";
        bool dark = false;
        if (std::isfinite(v)) {
          // The best (smallest) cell darkest blue, the worst near white; on a
          // log scale (times read as ratios), linear if a value is <= 0.
          const double f = !(hi > lo) ? 0
                           : lo > 0   ? std::log(v / lo) / std::log(hi / lo)
                                      : (v - lo) / (hi - lo);
          char buf[16];
          std::snprintf(buf, sizeof buf, "#%02x%02x%02x", int(8 + 232 * f), int(48 + 192 * f), int(107 + 138 * f));
          fill = buf;
          dark = f < 0.5;
        }
        body += "<rect class=\"cell\" x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(cell_w) +
                "\" height=\"" + num(cell_h) + "\" fill=\"" + fill + "\" stroke=\"white\"/>\n";
        const std::string t = r < panel.text.size() && c < panel.text[r].size() ? panel.text[r][c] : "";
        std::vector<std::string> lines;
        for (size_t from = 0; !t.empty() && from <= t.size();) {
          const size_t nl = std::min(t.find('\n', from), t.size());
          lines.push_back(t.substr(from, nl - from));
          from = nl + 1;
        }
        for (size_t k = 0; k < lines.size(); ++k)
          body += text(x + cell_w / 2, y + cell_h / 2 + 4 + 14 * (double(k) - 0.5 * double(lines.size() - 1)), lines[k],
                       "middle", dark ? " fill=\"white\"" : "");
      }
    }
    for (size_t c = 0; c < m.columns.size(); ++c)
      body += text(x0 + (c + 0.5) * cell_w, y0 + grid_h + 16, m.columns[c]);
    body += text(x0 + grid_w / 2, y0 + grid_h + 34, m.x_label);
    body += text(x0 - 50, y0 + grid_h / 2, m.y_label, "middle",
                 (" transform=\"rotate(-90 " + num(x0 - 50) + " " + num(y0 + grid_h / 2) + ")\"").c_str());
    body += "</g>\n";
  }
  body += text(kWidth / 2, 48, m.scale_note);
  return document(m.title, body, height);
}

}  // namespace gdr::tune::svg
