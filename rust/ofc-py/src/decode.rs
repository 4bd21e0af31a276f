//! The import decoders: a block of app JSON or open-format lines to the stored
//! columns, decoded with the GIL released.  The vectors move into NumPy arrays
//! (no copy); `ofc_stats.core.decode` wraps them as Arrow arrays.

use numpy::{Element, PyArray1, PyArrayMethods};
use ofc_core::decode::app::AppDecoder as CoreApp;
use ofc_core::decode::fpdb::{FpdbDecoder as CoreFpdb, Row};
use ofc_core::decode::open::OpenDecoder as CoreOpen;
use ofc_core::decode::swc::SwcDecoder as CoreSwc;
use ofc_core::decode::{Block, Floats, Lists, Resolved, Strings, Unit};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};

fn put<'py, T: Element>(out: &Bound<'py, PyDict>, name: &str, values: Vec<T>) -> PyResult<()> {
    out.set_item(name, PyArray1::from_vec(out.py(), values))
}

fn put_strings(out: &Bound<'_, PyDict>, name: &str, s: Strings) -> PyResult<()> {
    put(out, &format!("{name}.offsets"), s.offsets)?;
    put(out, &format!("{name}.data"), s.data)?;
    put(out, &format!("{name}.valid"), s.valid)
}

fn put_lists(out: &Bound<'_, PyDict>, name: &str, l: Lists) -> PyResult<()> {
    put(out, &format!("{name}.offsets"), l.offsets)?;
    put(out, &format!("{name}.values"), l.values)?;
    put(out, &format!("{name}.valid"), l.valid)
}

fn put_floats(out: &Bound<'_, PyDict>, name: &str, f: Floats) -> PyResult<()> {
    put(out, name, f.values)?;
    put(out, &format!("{name}.valid"), f.valid)
}

/// A decoded block as a dict of NumPy arrays (see `ofc_stats/_core.pyi`).
fn block_dict<'py>(
    py: Python<'py>,
    block: Block,
    presets: &[String],
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("consumed", block.consumed)?;
    out.set_item("consumed_lines", block.consumed_lines)?;
    let mut units = Vec::with_capacity(block.units.len() * 4);
    for unit in &block.units {
        match *unit {
            Unit::Hands { start, stop } => units.extend([0, start as i64, stop as i64, 0]),
            Unit::Lines { start, stop, line } => units.extend([1, start as i64, stop as i64, line]),
        }
    }
    let count = block.units.len();
    out.set_item("units", PyArray1::from_vec(py, units).reshape([count, 4])?)?;
    put(&out, "span_start", block.span_start)?;
    put(&out, "span_stop", block.span_stop)?;
    put(&out, "span_line", block.span_line)?;
    out.set_item("presets", presets.to_vec())?;
    let c = block.columns;
    put(&out, "line", c.line)?;
    put(&out, "offset", c.offset)?;
    put_strings(&out, "hand_key", c.hand_key)?;
    put_strings(&out, "room", c.room)?;
    put_strings(&out, "table_id", c.table_id)?;
    put_strings(&out, "room_hand_id", c.room_hand_id)?;
    put_strings(&out, "rules_text", c.rules_text)?;
    put(&out, "preset", c.preset)?;
    put(&out, "played_at", c.played_at)?;
    put(&out, "played_at.valid", c.played_at_valid)?;
    put_floats(&out, "stakes", c.stakes)?;
    put_strings(&out, "currency", c.currency)?;
    put_strings(&out, "raw_text", c.raw_text)?;
    put(&out, "seat_count", c.seat_count)?;
    put(&out, "complete", c.complete)?;
    put(&out, "fingerprint", c.fingerprint)?;
    put(&out, "seat_hand", c.seat_hand)?;
    put(&out, "seat", c.seat)?;
    put_strings(&out, "player", c.player)?;
    put_strings(&out, "player_id", c.player_id)?;
    put(&out, "hero", c.hero)?;
    put(&out, "in_fantasy", c.in_fantasy)?;
    put(&out, "fantasy_cards", c.fantasy_cards)?;
    put(&out, "fantasy_cards.valid", c.fantasy_cards_valid)?;
    put_lists(&out, "top", c.top)?;
    put_lists(&out, "middle", c.middle)?;
    put_lists(&out, "bottom", c.bottom)?;
    put(&out, "board", c.board)?;
    put(&out, "board.valid", c.board_valid)?;
    put(&out, "board_streets", c.board_streets)?;
    put(&out, "board_streets.valid", c.board_streets_valid)?;
    put_lists(&out, "discards", c.discards)?;
    put_floats(&out, "reported_points", c.points)?;
    put_floats(&out, "reported_money", c.money)?;
    put_floats(&out, "stack", c.stack)?;
    put(&out, "card_hand", c.card_hand)?;
    put(&out, "card_seat", c.card_seat)?;
    put(&out, "street", c.street)?;
    put(&out, "card", c.card)?;
    put(&out, "destination", c.destination)?;
    Ok(out)
}

/// The caller's resolver (rule text -> (preset, max seats, deck) or None), called with the
/// GIL taken again; its first exception is kept and raised after the block.
fn resolver<'a>(
    resolve: &'a Py<PyAny>,
    error: &'a mut Option<PyErr>,
) -> impl FnMut(&str) -> Resolved + 'a {
    move |text: &str| {
        Python::attach(|py| match resolve.call1(py, (text,)) {
            Ok(found) => match found.extract::<Option<(String, u32, u32)>>(py) {
                Ok(found) => found,
                Err(err) => {
                    error.get_or_insert(err);
                    None
                }
            },
            Err(err) => {
                error.get_or_insert(err);
                None
            }
        })
    }
}

/// App JSON, a block of whole lines at a time (one decoder a file).
#[pyclass(module = "ofc_stats._core")]
pub struct AppDecoder {
    inner: CoreApp,
    resolve: Py<PyAny>,
}

#[pymethods]
impl AppDecoder {
    #[new]
    fn new(resolve: Py<PyAny>) -> Self {
        AppDecoder {
            inner: CoreApp::default(),
            resolve,
        }
    }

    /// Decode `data` (whole lines from line `first_line`, byte `first_offset` of the file).
    #[pyo3(signature = (data, first_line, first_offset, file_start, last))]
    fn decode<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyBytes>,
        first_line: i64,
        first_offset: i64,
        file_start: bool,
        last: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let bytes = data.as_bytes();
        let mut error = None;
        let inner = &mut self.inner;
        let resolve = &self.resolve;
        let block = py.detach(|| {
            let mut resolve = resolver(resolve, &mut error);
            inner.decode(
                bytes,
                first_line,
                first_offset,
                file_start,
                last,
                &mut resolve,
            )
        });
        if let Some(err) = error {
            return Err(err);
        }
        block_dict(py, block, &self.inner.presets.names)
    }
}

/// The open format, a block of whole lines at a time (one decoder a file).
#[pyclass(module = "ofc_stats._core")]
pub struct OpenDecoder {
    inner: CoreOpen,
    resolve: Py<PyAny>,
}

#[pymethods]
impl OpenDecoder {
    #[new]
    fn new(resolve: Py<PyAny>) -> Self {
        OpenDecoder {
            inner: CoreOpen::default(),
            resolve,
        }
    }

    /// Decode `data` (whole lines from line `first_line`, byte `first_offset` of the file).
    #[pyo3(signature = (data, first_line, first_offset, file_start, last))]
    fn decode<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyBytes>,
        first_line: i64,
        first_offset: i64,
        file_start: bool,
        last: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let _ = last; // every line of the open format stands alone
        let bytes = data.as_bytes();
        let mut error = None;
        let inner = &mut self.inner;
        let resolve = &self.resolve;
        let block = py.detach(|| {
            let mut resolve = resolver(resolve, &mut error);
            inner.decode(bytes, first_line, first_offset, file_start, &mut resolve)
        });
        if let Some(err) = error {
            return Err(err);
        }
        block_dict(py, block, &self.inner.presets.names)
    }
}

/// fpdb rows, a fetch at a time (one decoder a database).
#[pyclass(module = "ofc_stats._core")]
pub struct FpdbDecoder {
    inner: CoreFpdb,
    resolve: Py<PyAny>,
}

#[pymethods]
impl FpdbDecoder {
    #[new]
    fn new(resolve: Py<PyAny>) -> Self {
        FpdbDecoder {
            inner: CoreFpdb::default(),
            resolve,
        }
    }

    /// Decode rows as fetched, `(row id, siteHandNo, table name, rawJson)` each: a row with
    /// no id, or whose rawJson is not a `str`, is the definition's.  Units of kind 1 are rows
    /// `start..stop` for the readable reader.
    fn decode<'py>(
        &mut self,
        py: Python<'py>,
        rows: Vec<Bound<'py, PyTuple>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let fields = rows
            .iter()
            .map(|row| Ok((row.get_item(0)?, row.get_item(2)?, row.get_item(3)?)))
            .collect::<PyResult<Vec<_>>>()?;
        let rows = fields
            .iter()
            .map(|(id, table_name, text)| {
                let id: Option<i64> = id.extract()?;
                Ok(Row {
                    id: id.unwrap_or(-1),
                    table_name: table_name.cast::<PyString>()?.to_str()?,
                    text: id.and_then(|_| text.cast::<PyString>().ok()?.to_str().ok()),
                })
            })
            .collect::<PyResult<Vec<Row<'_>>>>()?;
        let mut error = None;
        let inner = &mut self.inner;
        let resolve = &self.resolve;
        let block = py.detach(|| {
            let mut resolve = resolver(resolve, &mut error);
            inner.decode(&rows, &mut resolve)
        });
        if let Some(err) = error {
            return Err(err);
        }
        block_dict(py, block, &self.inner.presets.names)
    }
}

/// SwC captures, a block of whole lines at a time (one decoder a file).
#[pyclass(module = "ofc_stats._core")]
pub struct SwcDecoder {
    inner: CoreSwc,
    resolve: Py<PyAny>,
}

#[pymethods]
impl SwcDecoder {
    #[new]
    fn new(resolve: Py<PyAny>) -> Self {
        SwcDecoder {
            inner: CoreSwc::default(),
            resolve,
        }
    }

    /// Decode the block `head + b"".join(reads)`, the last read to byte `end` (whole lines
    /// from line `first_line`, not joined here; `last`: the file ends with it).  ``stop`` is
    /// None, or where the readable reader goes on: (line, byte of the block, the closed
    /// (table, hand id) pairs, the open hands' lines as (number, bytes)).
    #[pyo3(signature = (head, reads, end, first_line, last))]
    fn decode<'py>(
        &mut self,
        py: Python<'py>,
        head: &Bound<'py, PyBytes>,
        reads: Vec<Bound<'py, PyBytes>>,
        end: usize,
        first_line: i64,
        last: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let head = head.as_bytes();
        let reads: Vec<&[u8]> = reads.iter().map(|read| read.as_bytes()).collect();
        if reads.last().map_or(end > 0, |read| end > read.len()) {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "end is past the last read",
            ));
        }
        let mut error = None;
        let inner = &mut self.inner;
        let resolve = &self.resolve;
        let (block, stop) = py.detach(|| {
            let mut resolve = resolver(resolve, &mut error);
            inner.decode(head, &reads, end, first_line, last, &mut resolve)
        });
        if let Some(err) = error {
            return Err(err);
        }
        let out = block_dict(py, block, &self.inner.presets.names)?;
        match stop {
            None => out.set_item("stop", py.None())?,
            Some(stop) => {
                let replay: Vec<(i64, Bound<'py, PyBytes>)> = stop
                    .replay
                    .iter()
                    .map(|(number, text)| (*number, PyBytes::new(py, text.as_bytes())))
                    .collect();
                out.set_item("stop", (stop.line, stop.at, stop.closed, replay))?;
            }
        }
        Ok(out)
    }
}

/// The lines of a block as the import lane numbers them (its newlines, and one more when it
/// does not end with one), counted with the GIL released.
#[pyfunction]
fn count_lines(py: Python<'_>, data: &Bound<'_, PyBytes>) -> usize {
    let bytes = data.as_bytes();
    py.detach(|| ofc_core::decode::count_lines(bytes))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(count_lines, m)?)?;
    m.add_class::<AppDecoder>()?;
    m.add_class::<FpdbDecoder>()?;
    m.add_class::<OpenDecoder>()?;
    m.add_class::<SwcDecoder>()?;
    Ok(())
}
