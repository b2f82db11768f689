//! TOML documents read in Rust for the command line's start-up. Python's
//! tomllib reads the same documents, but importing it (with the typing,
//! datetime and string modules it imports and the expressions it compiles)
//! costs about 16 ms on a slow host, a sixth of `satcp run`'s 100 ms. The
//! `toml` crate follows TOML 1.0, as tomllib does; what it cannot give as
//! tomllib would is left to tomllib (`satcp.scenario.parse_toml`).

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use toml::{Table, Value};

/// The document `text` as `tomllib.loads` gives it (tables as dicts in
/// document order, arrays as lists), or None where tomllib must answer:
/// a document that is not TOML (tomllib's message names the line), one
/// with a date or a time (tomllib's datetime objects), or text that is
/// not Unicode (a command line's undecodable bytes). A byte-order mark
/// is left to tomllib too: the crate skips it, tomllib refuses it.
#[pyfunction]
pub fn parse_toml<'py>(text: &Bound<'py, PyString>) -> PyResult<Option<Bound<'py, PyDict>>> {
    let py = text.py();
    let Ok(text) = text.to_cow() else {
        return Ok(None);
    };
    if text.starts_with('\u{feff}') {
        return Ok(None);
    }
    match toml::from_str::<Table>(&text) {
        Ok(doc) => table(py, &doc),
        Err(_) => Ok(None),
    }
}

fn table<'py>(py: Python<'py>, t: &Table) -> PyResult<Option<Bound<'py, PyDict>>> {
    let d = PyDict::new(py);
    for (k, v) in t {
        let Some(v) = value(py, v)? else {
            return Ok(None);
        };
        d.set_item(k, v)?;
    }
    Ok(Some(d))
}

fn value<'py>(py: Python<'py>, v: &Value) -> PyResult<Option<Bound<'py, PyAny>>> {
    Ok(Some(match v {
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        Value::Float(f) => f.into_pyobject(py)?.into_any(),
        Value::Boolean(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                let Some(item) = value(py, item)? else {
                    return Ok(None);
                };
                list.append(item)?;
            }
            list.into_any()
        }
        Value::Table(t) => match table(py, t)? {
            Some(d) => d.into_any(),
            None => return Ok(None),
        },
        Value::Datetime(_) => return Ok(None),
    }))
}
