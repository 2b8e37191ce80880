//! Plain-text tables of the readable outputs (`lcm predict`, `lcm compare`): every column
//! as wide as its widest cell, header included, so that a long fragment name, a large
//! variable value or a long verdict never pushes the cells after it out of line.

use std::fmt::Write as _;

/// How a column's cells sit in its width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text columns (names): padded on the right.
    Left,
    /// Numbers: padded on the left, so that their ends line up.
    Right,
}

/// One column: its alignment and the spaces that separate it from the column before it
/// (ignored for the first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// Where the cells sit in the column's width.
    pub align: Align,
    /// Spaces before the column.
    pub gap: usize,
}

impl Column {
    /// A left-aligned column one space after the previous one.
    pub const fn left() -> Column {
        Column {
            align: Align::Left,
            gap: 1,
        }
    }

    /// A right-aligned column one space after the previous one.
    pub const fn right() -> Column {
        Column {
            align: Align::Right,
            gap: 1,
        }
    }

    /// The same column `gap` spaces after the previous one.
    pub const fn after(self, gap: usize) -> Column {
        Column { gap, ..self }
    }
}

/// A table of text cells: a header row and body rows, rendered with widths computed from
/// the cells (in characters, not bytes).
#[derive(Debug, Clone)]
pub struct Table {
    columns: Vec<Column>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these columns and the header row `header` (one cell per column).
    pub fn new(columns: Vec<Column>, header: Vec<String>) -> Table {
        let mut t = Table {
            columns,
            rows: Vec::new(),
        };
        t.row(header);
        t
    }

    /// Adds a row; a row with fewer cells than columns leaves the rest empty, cells
    /// beyond the columns are dropped.
    pub fn row(&mut self, mut cells: Vec<String>) {
        cells.resize(self.columns.len(), String::new());
        self.rows.push(cells);
    }

    /// Each column's width: its widest cell.
    fn widths(&self) -> Vec<usize> {
        (0..self.columns.len())
            .map(|c| {
                self.rows
                    .iter()
                    .map(|r| r[c].chars().count())
                    .max()
                    .unwrap_or(0)
            })
            .collect()
    }

    /// The table's lines, header first, each ending in a newline, without trailing
    /// spaces.
    pub fn render(&self) -> String {
        let widths = self.widths();
        let mut out = String::new();
        for row in &self.rows {
            let mut line = String::new();
            for (c, (cell, col)) in row.iter().zip(&self.columns).enumerate() {
                if c > 0 {
                    line.push_str(&" ".repeat(col.gap));
                }
                let w = widths[c];
                let _ = match col.align {
                    Align::Left => write!(line, "{cell:<w$}"),
                    Align::Right => write!(line, "{cell:>w$}"),
                };
            }
            let _ = writeln!(out, "{}", line.trim_end());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_column_is_as_wide_as_its_widest_cell() {
        let mut t = Table::new(
            vec![Column::left(), Column::right(), Column::left().after(2)],
            cells(&["fragment", "T (s)", "note"]),
        );
        t.row(cells(&["machine par items", "1.5", "*"]));
        t.row(cells(&["a", "0.000123", ""]));
        assert_eq!(
            t.render(),
            "fragment             T (s)  note\n\
             machine par items      1.5  *\n\
             a                 0.000123\n"
        );
    }

    #[test]
    fn widths_count_characters_not_bytes() {
        let mut t = Table::new(vec![Column::left(), Column::right()], cells(&["µs", "x"]));
        t.row(cells(&["ab", "1"]));
        assert_eq!(t.render(), "µs x\nab 1\n");
    }

    #[test]
    fn missing_cells_are_empty() {
        let mut t = Table::new(vec![Column::right(), Column::right()], cells(&["a", "b"]));
        t.row(cells(&["10"]));
        assert_eq!(t.render(), " a b\n10\n");
    }
}
