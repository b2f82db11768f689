//! A table of numbers as CSV text, byte for byte what
//! `pandas.DataFrame(columns).to_csv(index=False)` writes, for `satcp run
//! --out`: the time series are thousands of floats, and Python's `repr` of
//! each took a tenth of the command's time. The tables it does not take
//! (text, mixed or missing columns, names to quote) are written by
//! `satcp.frame_files` in Python, which this mirrors for the rest.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use std::fmt::Write;

/// One field of a column as pandas types it.
#[derive(Clone, Copy)]
enum Cell {
    Float(f64),
    Int(i64),
    Bool(bool),
    Missing,
}

/// The CSV text of `columns` (a dict of column name -> list), or None if
/// it is not a table this function writes: fewer than two columns, no
/// rows, columns of different lengths, a name with a character the csv
/// module quotes (`,` `"` CR LF NUL), or a column that is not all bools,
/// all 64-bit integers, or numbers and missing values (None, NaN), which
/// pandas makes float64 (its integers written as floats, the missing ones
/// empty).
#[pyfunction]
pub fn csv_of_numbers(columns: &Bound<'_, PyDict>) -> PyResult<Option<String>> {
    if columns.len() < 2 {
        return Ok(None);
    }
    // A column of text (a sweep's summary names its variants) shows in its
    // first field: left to Python before any number column is converted.
    for values in columns.values() {
        let Ok(values) = values.downcast::<PyList>() else {
            return Ok(None);
        };
        if values
            .get_item(0)
            .is_ok_and(|v| v.is_instance_of::<PyString>())
        {
            return Ok(None);
        }
    }
    let mut names = Vec::with_capacity(columns.len());
    let mut cells = Vec::with_capacity(columns.len());
    for (name, values) in columns.iter() {
        let (Ok(name), Ok(values)) = (name.downcast::<PyString>(), values.downcast::<PyList>())
        else {
            return Ok(None);
        };
        let name = name.to_cow()?.into_owned();
        if name.contains([',', '"', '\r', '\n', '\0']) {
            return Ok(None);
        }
        let Some(column) = column_cells(values)? else {
            return Ok(None);
        };
        names.push(name);
        cells.push(column);
    }
    let rows = cells[0].len();
    if rows == 0 || cells.iter().any(|c| c.len() != rows) {
        return Ok(None);
    }
    let mut out = String::with_capacity(rows * cells.len() * 12);
    out.push_str(&names.join(","));
    out.push('\n');
    for r in 0..rows {
        for (i, column) in cells.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match column[r] {
                Cell::Float(x) => push_float_repr(&mut out, x),
                Cell::Int(n) => write!(out, "{n}").expect("a String takes any text"),
                Cell::Bool(b) => out.push_str(if b { "True" } else { "False" }),
                Cell::Missing => {}
            }
        }
        out.push('\n');
    }
    Ok(Some(out))
}

/// A column's fields with pandas's dtype applied (`column_dtype` in
/// `satcp/frame_files.py`), or None for a column this writer leaves to
/// Python: bools mixed with anything, integers beyond int64, any other
/// type (an exact int, float or bool, or None, is all it takes).
fn column_cells(values: &Bound<'_, PyList>) -> PyResult<Option<Vec<Cell>>> {
    let mut cells = Vec::with_capacity(values.len());
    let (mut bools, mut ints, mut floats, mut missing) = (0usize, 0usize, 0usize, 0usize);
    for v in values.iter() {
        let cell = if v.is_none() {
            missing += 1;
            Cell::Missing
        } else if let Ok(b) = v.downcast_exact::<PyBool>() {
            bools += 1;
            Cell::Bool(b.is_true())
        } else if v.is_exact_instance_of::<PyInt>() {
            let Ok(n) = v.extract::<i64>() else {
                return Ok(None); // uint64 or object: Python's
            };
            ints += 1;
            Cell::Int(n)
        } else if let Ok(f) = v.downcast_exact::<PyFloat>() {
            let x = f.value();
            if x.is_nan() {
                missing += 1;
                Cell::Missing
            } else {
                floats += 1;
                Cell::Float(x)
            }
        } else {
            return Ok(None);
        };
        cells.push(cell);
    }
    if bools > 0 {
        // all bools: "True"/"False"; with anything else, pandas's object
        return Ok((bools == cells.len()).then_some(cells));
    }
    if floats > 0 || (ints > 0 && missing > 0) {
        // float64: its integers are written as floats
        for c in &mut cells {
            if let Cell::Int(n) = *c {
                *c = Cell::Float(n as f64);
            }
        }
    }
    // all ints (int64), or all missing (pandas's object: empty fields too)
    Ok(Some(cells))
}

/// Python's `repr(x)` of a float that is not NaN: the shortest digits that
/// read back as `x`, in positional notation when the decimal point falls
/// within 16 digits left and 4 right of them ("1000000000000000.0",
/// "0.0001"), else in exponent notation with a sign and at least two
/// exponent digits ("1e+16", "1e-05", "6.4e-05").
fn push_float_repr(out: &mut String, x: f64) {
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
        return;
    }
    if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0.0" } else { "0.0" });
        return;
    }
    // The shortest digits that round-trip, an exact tie rounded to even as
    // Python's repr does (Rust's own `{:e}` rounds such a tie up: it wrote
    // 279075186034809.13 for the 279075186034809.125 that Python writes
    // as ...12). ryu writes "1e16", "1.5e-5" or "0.25": read back its
    // digits and where the decimal point falls.
    let mut buf = ryu::Buffer::new();
    let text = buf.format_finite(x.abs());
    let (mantissa, exp) = text.split_once('e').unwrap_or((text, "0"));
    let exp: i32 = exp.parse().expect("ryu's exponent is an integer");
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{whole}{fraction}");
    let digits = all.trim_start_matches('0');
    let point = exp + whole.len() as i32 - (all.len() - digits.len()) as i32;
    let digits = digits.trim_end_matches('0');
    if x < 0.0 {
        out.push('-');
    }
    let n = digits.len() as i32;
    if -4 < point && point <= 16 {
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(digits);
        } else if point >= n {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', (point - n) as usize));
            out.push_str(".0");
        } else {
            out.push_str(&digits[..point as usize]);
            out.push('.');
            out.push_str(&digits[point as usize..]);
        }
    } else {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let exp = point - 1;
        let sign = if exp < 0 { '-' } else { '+' };
        write!(out, "e{sign}{:02}", exp.abs()).expect("a String takes any text");
    }
}

#[cfg(test)]
mod tests {
    use super::push_float_repr;

    fn repr(x: f64) -> String {
        let mut s = String::new();
        push_float_repr(&mut s, x);
        s
    }

    #[test]
    fn positional_between_four_places_right_and_sixteen_left() {
        assert_eq!(repr(1.0), "1.0");
        assert_eq!(repr(0.1), "0.1");
        assert_eq!(repr(-2.5), "-2.5");
        assert_eq!(repr(0.0001), "0.0001");
        assert_eq!(repr(1e15), "1000000000000000.0");
        assert_eq!(repr(1234567890123456.0), "1234567890123456.0");
        assert_eq!(repr(0.521_507_9), "0.5215079");
        assert_eq!(repr(24384.0), "24384.0");
    }

    #[test]
    fn a_tie_between_shortest_digits_goes_to_even() {
        // exactly 279075186034809.125: ...12 and ...13 are as near
        assert_eq!(repr(279_075_186_034_809.0 + 0.125), "279075186034809.12");
    }

    #[test]
    fn exponent_outside_with_sign_and_two_digits() {
        assert_eq!(repr(1e16), "1e+16");
        assert_eq!(repr(0.00001), "1e-05");
        assert_eq!(repr(6.4e-05), "6.4e-05");
        assert_eq!(repr(-1.5e300), "-1.5e+300");
        assert_eq!(repr(5e-324), "5e-324");
        assert_eq!(repr(f64::MAX), "1.7976931348623157e+308");
    }

    #[test]
    fn zeros_and_infinities() {
        assert_eq!(repr(0.0), "0.0");
        assert_eq!(repr(-0.0), "-0.0");
        assert_eq!(repr(f64::INFINITY), "inf");
        assert_eq!(repr(f64::NEG_INFINITY), "-inf");
    }
}
