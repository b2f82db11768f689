//! The MODCOD table: each modulation and code rate with the information
//! bits of its frames (Kbch) and the ideal Es/N0 it needs for quasi-error-
//! free reception (QEF, PER 1e-7, AWGN, normal FECFRAME).
//!
//! Sources (docs/satellite-access.md):
//! - DVB-S2: ETSI EN 302 307-1 V1.4.1, Table 13 (Es/N0 and spectral
//!   efficiency), Tables 5a and 5b (Kbch of normal and short frames).
//! - DVB-S2X: ETSI EN 302 307-2 V1.1.1, Table 20a (normal frames, Es/N0 and
//!   spectral efficiency). Its normal frames use a BCH code of 12 error
//!   corrections (Nbch - Kbch = 192), so Kbch = rate x 64,800 - 192; the
//!   spectral efficiencies of the table follow from it (checked in the
//!   tests). The VL-SNR MODCODs (QPSK 2/9, BPSK) are not in the table:
//!   their frames carry another header.
//!
//! The table is data: a MODCOD is found by its name as written here.

/// The constellations and their bits per symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modulation {
    Qpsk,
    Psk8,
    Apsk8,
    Apsk16,
    Apsk32,
    Apsk64,
    Apsk128,
    Apsk256,
}

impl Modulation {
    pub fn bits_per_symbol(self) -> u32 {
        match self {
            Modulation::Qpsk => 2,
            Modulation::Psk8 | Modulation::Apsk8 => 3,
            Modulation::Apsk16 => 4,
            Modulation::Apsk32 => 5,
            Modulation::Apsk64 => 6,
            Modulation::Apsk128 => 7,
            Modulation::Apsk256 => 8,
        }
    }
}

/// The standard that defines a MODCOD; as a setting, the MODCODs a
/// carrier may use: DVB-S2's, or DVB-S2's and DVB-S2X's.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Standard {
    /// EN 302 307-1.
    #[default]
    S2,
    /// EN 302 307-2 (with the DVB-S2 MODCODs).
    S2x,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Modcod {
    /// As the standard writes it: "QPSK 1/4", "16APSK 3/5-L".
    pub name: &'static str,
    pub modulation: Modulation,
    pub standard: Standard,
    /// Kbch of a normal (64,800-bit) FECFRAME: the BBFRAME's bits.
    pub kbch_normal: u32,
    /// Kbch of a short (16,200-bit) FECFRAME; None where the table has no
    /// short frame (DVB-S2's 9/10, and the S2X MODCODs here).
    pub kbch_short: Option<u32>,
    /// Ideal Es/N0 for QEF at normal FECFRAME length, dB.
    pub esn0_db: f64,
    /// The table's spectral efficiency, bits per symbol (BBHEADER and
    /// PLHEADER counted, pilots not): a check of the framing, not an input.
    pub table_efficiency: f64,
}

use Modulation::*;
use Standard::*;

const fn s2(
    name: &'static str,
    modulation: Modulation,
    kbch_normal: u32,
    kbch_short: Option<u32>,
    table_efficiency: f64,
    esn0_db: f64,
) -> Modcod {
    Modcod {
        name,
        modulation,
        standard: S2,
        kbch_normal,
        kbch_short,
        esn0_db,
        table_efficiency,
    }
}

/// An S2X MODCOD of code rate `num`/`den` (normal frames only).
const fn s2x(
    name: &'static str,
    modulation: Modulation,
    num: u32,
    den: u32,
    table_efficiency: f64,
    esn0_db: f64,
) -> Modcod {
    Modcod {
        name,
        modulation,
        standard: S2x,
        kbch_normal: 64_800 / den * num - 192,
        kbch_short: None,
        esn0_db,
        table_efficiency,
    }
}

/// EN 302 307-1 Table 13 (with Kbch from Tables 5a/5b), then EN 302 307-2
/// Table 20a.
pub const TABLE: &[Modcod] = &[
    s2("QPSK 1/4", Qpsk, 16_008, Some(3_072), 0.490243, -2.35),
    s2("QPSK 1/3", Qpsk, 21_408, Some(5_232), 0.656448, -1.24),
    s2("QPSK 2/5", Qpsk, 25_728, Some(6_312), 0.789412, -0.30),
    s2("QPSK 1/2", Qpsk, 32_208, Some(7_032), 0.988858, 1.00),
    s2("QPSK 3/5", Qpsk, 38_688, Some(9_552), 1.188304, 2.23),
    s2("QPSK 2/3", Qpsk, 43_040, Some(10_632), 1.322253, 3.10),
    s2("QPSK 3/4", Qpsk, 48_408, Some(11_712), 1.487473, 4.03),
    s2("QPSK 4/5", Qpsk, 51_648, Some(12_432), 1.587196, 4.68),
    s2("QPSK 5/6", Qpsk, 53_840, Some(13_152), 1.654663, 5.18),
    s2("QPSK 8/9", Qpsk, 57_472, Some(14_232), 1.766451, 6.20),
    s2("QPSK 9/10", Qpsk, 58_192, None, 1.788612, 6.42),
    s2("8PSK 3/5", Psk8, 38_688, Some(9_552), 1.779991, 5.50),
    s2("8PSK 2/3", Psk8, 43_040, Some(10_632), 1.980636, 6.62),
    s2("8PSK 3/4", Psk8, 48_408, Some(11_712), 2.228124, 7.91),
    s2("8PSK 5/6", Psk8, 53_840, Some(13_152), 2.478562, 9.35),
    s2("8PSK 8/9", Psk8, 57_472, Some(14_232), 2.646012, 10.69),
    s2("8PSK 9/10", Psk8, 58_192, None, 2.679207, 10.98),
    s2("16APSK 2/3", Apsk16, 43_040, Some(10_632), 2.637201, 8.97),
    s2("16APSK 3/4", Apsk16, 48_408, Some(11_712), 2.966728, 10.21),
    s2("16APSK 4/5", Apsk16, 51_648, Some(12_432), 3.165623, 11.03),
    s2("16APSK 5/6", Apsk16, 53_840, Some(13_152), 3.300184, 11.61),
    s2("16APSK 8/9", Apsk16, 57_472, Some(14_232), 3.523143, 12.89),
    s2("16APSK 9/10", Apsk16, 58_192, None, 3.567342, 13.13),
    s2("32APSK 3/4", Apsk32, 48_408, Some(11_712), 3.703295, 12.73),
    s2("32APSK 4/5", Apsk32, 51_648, Some(12_432), 3.951571, 13.64),
    s2("32APSK 5/6", Apsk32, 53_840, Some(13_152), 4.119540, 14.28),
    s2("32APSK 8/9", Apsk32, 57_472, Some(14_232), 4.397854, 15.69),
    s2("32APSK 9/10", Apsk32, 58_192, None, 4.453027, 16.05),
    s2x("QPSK 13/45", Qpsk, 13, 45, 0.567805, -2.03),
    s2x("QPSK 9/20", Qpsk, 9, 20, 0.889135, 0.22),
    s2x("QPSK 11/20", Qpsk, 11, 20, 1.088581, 1.45),
    s2x("8APSK 5/9-L", Apsk8, 5, 9, 1.647211, 4.73),
    s2x("8APSK 26/45-L", Apsk8, 26, 45, 1.713601, 5.13),
    s2x("8PSK 23/36", Psk8, 23, 36, 1.896173, 6.12),
    s2x("8PSK 25/36", Psk8, 25, 36, 2.062148, 7.02),
    s2x("8PSK 13/18", Psk8, 13, 18, 2.145136, 7.49),
    s2x("16APSK 1/2-L", Apsk16, 1, 2, 1.972253, 5.97),
    s2x("16APSK 8/15-L", Apsk16, 8, 15, 2.104850, 6.55),
    s2x("16APSK 5/9-L", Apsk16, 5, 9, 2.193247, 6.84),
    s2x("16APSK 26/45", Apsk16, 26, 45, 2.281645, 7.51),
    s2x("16APSK 3/5", Apsk16, 3, 5, 2.370043, 7.80),
    s2x("16APSK 3/5-L", Apsk16, 3, 5, 2.370043, 7.41),
    s2x("16APSK 28/45", Apsk16, 28, 45, 2.458441, 8.10),
    s2x("16APSK 23/36", Apsk16, 23, 36, 2.524739, 8.38),
    s2x("16APSK 2/3-L", Apsk16, 2, 3, 2.635236, 8.43),
    s2x("16APSK 25/36", Apsk16, 25, 36, 2.745734, 9.27),
    s2x("16APSK 13/18", Apsk16, 13, 18, 2.856231, 9.71),
    s2x("16APSK 7/9", Apsk16, 7, 9, 3.077225, 10.65),
    s2x("16APSK 77/90", Apsk16, 77, 90, 3.386618, 11.99),
    s2x("32APSK 2/3-L", Apsk32, 2, 3, 3.289502, 11.10),
    s2x("32APSK 32/45", Apsk32, 32, 45, 3.510192, 11.75),
    s2x("32APSK 11/15", Apsk32, 11, 15, 3.620536, 12.17),
    s2x("32APSK 7/9", Apsk32, 7, 9, 3.841226, 13.05),
    s2x("64APSK 32/45-L", Apsk64, 32, 45, 4.206428, 13.98),
    s2x("64APSK 11/15", Apsk64, 11, 15, 4.338659, 14.81),
    s2x("64APSK 7/9", Apsk64, 7, 9, 4.603122, 15.47),
    s2x("64APSK 4/5", Apsk64, 4, 5, 4.735354, 15.87),
    s2x("64APSK 5/6", Apsk64, 5, 6, 4.933701, 16.55),
    s2x("128APSK 3/4", Apsk128, 3, 4, 5.163248, 17.73),
    s2x("128APSK 7/9", Apsk128, 7, 9, 5.355556, 18.53),
    s2x("256APSK 29/45-L", Apsk256, 29, 45, 5.065690, 16.98),
    s2x("256APSK 2/3-L", Apsk256, 2, 3, 5.241514, 17.24),
    s2x("256APSK 31/45-L", Apsk256, 31, 45, 5.417338, 18.10),
    s2x("256APSK 32/45", Apsk256, 32, 45, 5.593162, 18.59),
    s2x("256APSK 11/15-L", Apsk256, 11, 15, 5.768987, 18.84),
    s2x("256APSK 3/4", Apsk256, 3, 4, 5.900855, 19.57),
];

/// The MODCOD called `name` (as the table writes it).
pub fn by_name(name: &str) -> Option<&'static Modcod> {
    TABLE.iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::dvbs2::framing::{FrameSize, BBHEADER_BITS};

    /// The table's spectral efficiency is (Kbch - 80) information bits
    /// over the symbols of a PLFRAME without pilots (90 of PLHEADER and
    /// 90 per slot): the Kbch values and the framing reproduce every row
    /// to the table's six decimals.
    #[test]
    fn the_framing_reproduces_the_tables_spectral_efficiencies() {
        for m in TABLE {
            let symbols = FrameSize::Normal.symbols(m.modulation, false) as f64;
            let eta = (m.kbch_normal - BBHEADER_BITS) as f64 / symbols;
            assert!(
                (eta - m.table_efficiency).abs() < 2e-6,
                "{}: {eta} vs {}",
                m.name,
                m.table_efficiency
            );
        }
    }

    #[test]
    fn names_are_unique_and_found() {
        for m in TABLE {
            assert_eq!(by_name(m.name), Some(m));
        }
        assert_eq!(by_name("QPSK 7/8"), None);
        assert_eq!(TABLE.iter().filter(|m| m.standard == S2).count(), 28);
    }
}
