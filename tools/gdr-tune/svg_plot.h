// A small self-contained SVG writer for gdr-tune's plots: line plots (linear
// or log x, points joined per series, vertical markers, horizontal reference
// lines, a legend) and heat maps (one or more panels of a labelled grid).
// Text is escaped; the output is one well-formed SVG document.
#pragma once

#include <string>
#include <vector>

namespace gdr::tune::svg {

struct Point {
  double x = 0, y = 0;
  std::string label;  // written next to the point ("" for none)
};

struct Series {
  std::string name;  // the legend's entry
  std::vector<Point> points;  // drawn in x order
  bool dashed = false;
};

// A vertical line at x (e.g. a crossover) or a horizontal one at y (e.g. a
// floor), labelled next to it.
struct Marker {
  double at = 0;
  std::string label;
  bool dotted = false;  // a vertical one of more than one thread (as the dashed series)
};

struct LinePlot {
  std::string title, x_label, y_label;
  bool log_x = false, log_y = false;
  double x_min = 0, x_max = 0;  // the x range to show at least (both 0: the data's)
  std::vector<Series> series;
  std::vector<Marker> vertical, horizontal;
  std::string empty_note;  // shown instead of the axes when no series has a point
};

std::string line_plot(const LinePlot& plot);

// A grid of cells, x columns by y rows; each cell a value (coloured on a
// log scale per panel, the smallest darkest) and its text. A cell without a value is left blank.
struct HeatPanel {
  std::string title;
  std::vector<std::vector<double>> values;  // [row][column]; NaN: no value
  std::vector<std::vector<std::string>> text;  // '\n' breaks a line
};

struct HeatMap {
  std::string title, x_label, y_label, scale_note;  // scale_note: what the colour means
  std::vector<std::string> columns, rows;           // tick labels
  std::vector<HeatPanel> panels;
  std::string empty_note;  // shown when there is no panel
};

std::string heat_map(const HeatMap& map);

// "&", "<", ">", '"' as entities.
std::string escape(const std::string& text);

}  // namespace gdr::tune::svg
