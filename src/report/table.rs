//! A table of text cells rendered either as aligned plain text (column
//! widths from the content) or as a GitHub markdown table. The writers build
//! one [`Table`] and pick the rendering, so both outputs carry exactly the
//! same cells.

use std::borrow::Cow;
use std::io::{self, Write};

use super::format::printable;

/// How a column's cells are aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Names.
    Left,
    /// Figures.
    Right,
}

/// Headers, alignments and rows of cells.
#[derive(Debug, Clone)]
pub struct Table {
    columns: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headers and alignments. Headers and cells
    /// go through [`printable`]: a name from a report or a scenario file
    /// cannot break the table's lines or drive the terminal.
    pub fn new(columns: &[(&str, Align)]) -> Table {
        Table {
            columns: columns
                .iter()
                .map(|(h, a)| (printable(h).into_owned(), *a))
                .collect(),
            rows: Vec::new(),
        }
    }

    /// The column headers and alignments.
    pub fn headers(&self) -> impl Iterator<Item = (&str, Align)> + '_ {
        self.columns
            .iter()
            .map(|(header, align)| (header.as_str(), *align))
    }

    /// The rows of cells.
    pub fn rows(&self) -> &[Vec<String>] {
        &self.rows
    }

    /// How many columns it has.
    pub fn columns(&self) -> usize {
        self.columns.len()
    }

    /// Appends a row; missing cells are left empty, extra cells are dropped.
    pub fn push(&mut self, cells: Vec<String>) {
        let mut cells: Vec<String> = cells
            .into_iter()
            .map(|cell| match printable(&cell) {
                Cow::Borrowed(_) => cell,
                Cow::Owned(escaped) => escaped,
            })
            .collect();
        cells.resize(self.columns.len(), String::new());
        self.rows.push(cells);
    }

    /// Column widths in characters (not bytes: `–` is one column).
    fn widths(&self) -> Vec<usize> {
        self.columns
            .iter()
            .enumerate()
            .map(|(i, (header, _))| {
                self.rows
                    .iter()
                    .map(|row| width(&row[i]))
                    .chain(std::iter::once(width(header)))
                    .max()
                    .unwrap_or(0)
            })
            .collect()
    }

    /// Aligned plain text, columns two spaces apart, `indent` before each
    /// line, no trailing spaces.
    pub fn write_text(&self, indent: &str, out: &mut dyn Write) -> io::Result<()> {
        let widths = self.widths();
        let header: Vec<String> = self.columns.iter().map(|(h, _)| h.clone()).collect();
        for row in std::iter::once(&header).chain(&self.rows) {
            let mut line = String::from(indent);
            for (i, cell) in row.iter().enumerate() {
                if i > 0 {
                    line.push_str("  ");
                }
                let pad = " ".repeat(widths[i] - width(cell));
                match self.columns[i].1 {
                    Align::Left => {
                        line.push_str(cell);
                        line.push_str(&pad);
                    }
                    Align::Right => {
                        line.push_str(&pad);
                        line.push_str(cell);
                    }
                }
            }
            writeln!(out, "{}", line.trim_end())?;
        }
        Ok(())
    }

    /// A GitHub markdown table (cells padded to the column width so the
    /// source reads as a table too).
    pub fn write_markdown(&self, out: &mut dyn Write) -> io::Result<()> {
        let header: Vec<String> = self.columns.iter().map(|(h, _)| escape(h)).collect();
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|row| row.iter().map(|c| escape(c)).collect())
            .collect();
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|i| {
                rows.iter()
                    .map(|r| width(&r[i]))
                    .chain([width(&header[i]), 3])
                    .max()
                    .unwrap_or(3)
            })
            .collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, cell)| {
                    let pad = " ".repeat(widths[i] - width(cell));
                    match self.columns[i].1 {
                        Align::Left => format!("{cell}{pad}"),
                        Align::Right => format!("{pad}{cell}"),
                    }
                })
                .collect();
            format!("| {} |", padded.join(" | "))
        };
        writeln!(out, "{}", line(&header))?;
        let rule: Vec<String> = self
            .columns
            .iter()
            .enumerate()
            .map(|(i, (_, align))| match align {
                Align::Left => "-".repeat(widths[i]),
                Align::Right => format!("{}:", "-".repeat(widths[i] - 1)),
            })
            .collect();
        writeln!(out, "| {} |", rule.join(" | "))?;
        for row in &rows {
            writeln!(out, "{}", line(row))?;
        }
        Ok(())
    }
}

/// Display width of a cell: its char count (every character we print is
/// single-width).
fn width(text: &str) -> usize {
    text.chars().count()
}

/// Escapes what would break a markdown table cell.
pub fn escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut table = Table::new(&[("name", Align::Left), ("req/s", Align::Right)]);
        table.push(vec!["hono-patched".into(), "9313".into()]);
        table.push(vec!["a|b".into(), "[1–2]".into()]);
        table
    }

    #[test]
    fn text_widths_come_from_content() {
        let mut out = Vec::new();
        sample().write_text("", &mut out).expect("write to a Vec");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "name          req/s\nhono-patched   9313\na|b           [1–2]\n"
        );
    }

    #[test]
    fn markdown_escapes_pipes_and_aligns_figures_right() {
        let mut out = Vec::new();
        sample().write_markdown(&mut out).expect("write to a Vec");
        assert_eq!(
            String::from_utf8(out).expect("utf-8"),
            "| name         | req/s |\n| ------------ | ----: |\n| hono-patched |  9313 |\n| a\\|b         | [1–2] |\n"
        );
    }
}
