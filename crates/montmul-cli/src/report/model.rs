//! The report's data: sections of tables, plots and sentences, as the experiments
//! return them and as `data.json` holds them. Rendering (HTML, Markdown, CSV, SVG) reads
//! these types only, so an experiment never formats anything itself.

use serde::Serialize;

/// One cell of a table: a number, a text, or nothing (no measurement at this place).
#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub enum Cell {
    /// A measured or transcribed number; never NaN or infinite ([`Cell::num`]).
    Num(f64),
    /// A label.
    Text(String),
    /// No value here (`null` in JSON, empty in CSV).
    Missing,
}

impl Cell {
    /// A number cell; a NaN or infinite value (a division by a zero time) is
    /// [`Cell::Missing`], so that `data.json` holds only numbers that parse.
    pub fn num(v: f64) -> Cell {
        if v.is_finite() {
            Cell::Num(v)
        } else {
            Cell::Missing
        }
    }

    /// A number cell, or [`Cell::Missing`] for `None`.
    pub fn opt(v: Option<f64>) -> Cell {
        v.map_or(Cell::Missing, Cell::num)
    }

    /// A text cell.
    pub fn text(s: impl Into<String>) -> Cell {
        Cell::Text(s.into())
    }
}

/// A table: written to `DIR/<id>.csv`, shown in the HTML and Markdown.
#[derive(Serialize, Clone, Debug)]
pub struct Table {
    /// File-name-safe identifier, unique in the report (`seed000-table1`).
    pub id: String,
    /// The caption.
    pub title: String,
    /// Where the numbers come from: which columns are measured here, which typed in
    /// from a seed (file, table or figure).
    pub source: String,
    /// Column headings.
    pub columns: Vec<String>,
    /// Rows, each as long as `columns`.
    pub rows: Vec<Vec<Cell>>,
}

/// How a series is drawn.
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Style {
    /// Points joined by lines (a measurement over a range).
    Line,
    /// Single marks (a seed's published points).
    Points,
}

/// One series of a plot.
#[derive(Serialize, Clone, Debug)]
pub struct Series {
    /// The legend's text.
    pub name: String,
    /// Line or marks.
    pub style: Style,
    /// (x, y) points, x increasing for a line.
    pub points: Vec<(f64, f64)>,
}

/// A plot: drawn as inline SVG in the HTML and as `DIR/<id>.svg` for the Markdown.
#[derive(Serialize, Clone, Debug)]
pub struct Plot {
    /// File-name-safe identifier, unique in the report.
    pub id: String,
    /// The caption.
    pub title: String,
    /// The x axis' label.
    pub x_label: String,
    /// The y axis' label.
    pub y_label: String,
    /// The series.
    pub series: Vec<Series>,
    /// A dashed horizontal reference line (a ratio of 1), if any.
    pub reference_y: Option<f64>,
}

/// One section of the report: one seed, or the summary.
#[derive(Serialize, Clone, Debug)]
pub struct Section {
    /// Anchor and identifier (`seed000`, `summary`).
    pub id: String,
    /// The heading.
    pub title: String,
    /// The seed document the section re-runs (file name), if any.
    pub seed_file: Option<String>,
    /// Sentences on what agrees with the seed, what does not, and why.
    pub findings: Vec<String>,
    /// Capabilities the section needs that are not built yet, one line each: shown
    /// plainly, in place of numbers.
    pub not_built: Vec<String>,
    /// The tables.
    pub tables: Vec<Table>,
    /// The plots.
    pub plots: Vec<Plot>,
}

impl Section {
    /// An empty section.
    pub fn new(id: &str, title: &str, seed_file: Option<&str>) -> Self {
        Section {
            id: id.to_string(),
            title: title.to_string(),
            seed_file: seed_file.map(str::to_string),
            findings: Vec::new(),
            not_built: Vec::new(),
            tables: Vec::new(),
            plots: Vec::new(),
        }
    }
}
