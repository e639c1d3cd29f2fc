//! The one markdown table writer every report section uses.
//!
//! How it works: a table is its columns (a heading and an alignment each), declared once,
//! then rows of cells; [`Table::write`] writes the heading row, the alignment row and every
//! row, each with as many cells as there are columns. A row that does not measure (a
//! variant refused on this rig) is a [`Table::note_row`]: its leading cells, then one cell
//! of text, and the empty cells that complete it.

use std::fmt::Write as _;

/// How a column's cells line up: text to the left, figures to the right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A markdown table being filled.
#[derive(Clone, Debug)]
pub struct Table {
    columns: Vec<(String, Align)>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these columns (heading, alignment), in order.
    pub fn new(columns: &[(&str, Align)]) -> Table {
        Table {
            columns: columns
                .iter()
                .map(|&(heading, align)| (heading.to_string(), align))
                .collect(),
            rows: Vec::new(),
        }
    }

    /// The same table with one more column at the end (columns read from a declaration).
    pub fn with_column(mut self, heading: impl Into<String>, align: Align) -> Table {
        self.columns.push((heading.into(), align));
        self
    }

    /// Adds a row of one cell per column.
    ///
    /// # Panics
    /// Where the row has another number of cells than the table has columns: a report
    /// whose columns do not match its headings is a bug of the report's code.
    pub fn row<I, S>(&mut self, cells: I)
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let cells: Vec<String> = cells.into_iter().map(Into::into).collect();
        assert_eq!(
            cells.len(),
            self.columns.len(),
            "a row of {} cells in a table of {} columns ({:?})",
            cells.len(),
            self.columns.len(),
            cells
        );
        self.rows.push(cells);
    }

    /// Adds a row whose first cells are `leading` and whose remaining columns hold `text`
    /// alone (in the first of them), the others left empty.
    pub fn note_row<S: Into<String>>(&mut self, leading: impl IntoIterator<Item = S>, text: &str) {
        let mut cells: Vec<String> = leading.into_iter().map(Into::into).collect();
        assert!(
            cells.len() < self.columns.len(),
            "a note row needs a column for its text"
        );
        cells.push(text.to_string());
        cells.resize(self.columns.len(), String::new());
        self.rows.push(cells);
    }

    /// Whether no row was added.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Writes the table: the heading row, the alignment row, then every row.
    pub fn write(&self, s: &mut String) {
        let line = |s: &mut String, cells: &mut dyn Iterator<Item = &str>| {
            s.push('|');
            for cell in cells {
                // A cell's own `|` would start another column.
                let _ = write!(s, " {} |", cell.replace('|', "\\|"));
            }
            s.push('\n');
        };
        line(s, &mut self.columns.iter().map(|(h, _)| h.as_str()));
        s.push('|');
        for (_, align) in &self.columns {
            s.push_str(match align {
                Align::Left => "---|",
                Align::Right => "---:|",
            });
        }
        s.push('\n');
        for row in &self.rows {
            line(s, &mut row.iter().map(String::as_str));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_note_rows_and_alignment() {
        let mut t = Table::new(&[
            ("variant", Align::Left),
            ("µs", Align::Right),
            ("×", Align::Right),
        ]);
        t.row(["flat", "3.1", "1.23"]);
        t.note_row(["simd"], "refused: a|b");
        let mut s = String::new();
        t.write(&mut s);
        assert_eq!(
            s,
            "| variant | µs | × |\n|---|---:|---:|\n| flat | 3.1 | 1.23 |\n| simd | refused: a\\|b |  |\n"
        );
    }

    #[test]
    #[should_panic(expected = "a row of 2 cells in a table of 3 columns")]
    fn a_row_of_the_wrong_width_panics() {
        let mut t = Table::new(&[("a", Align::Left), ("b", Align::Left), ("c", Align::Left)]);
        t.row(["1", "2"]);
    }
}
