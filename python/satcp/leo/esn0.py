"""A LEO terminal's Es/N0 from its geometry, for a DVB-S2 carrier's
``esn0_schedule`` (docs/satellite-access.md, "A LEO terminal's Es/N0").

The link budget is given once, as the Es/N0 the terminal would have with
the satellite at its zenith at ``altitude_m``; the geometry of each sample
moves it by two terms:

- free-space loss, which grows with the square of the slant range d:
  -20 log10(d / altitude_m) dB (Friis; the satellite's antenna gain
  towards the terminal taken as constant over the beam);
- the atmosphere's loss (gases, clouds), which grows with the length of
  the path through it: ``zenith_attenuation_db`` at zenith, times
  1 / sin(elevation) elsewhere (the cosecant law of ITU-R P.618 Sec. 2.2.1
  and P.676 Annex 2, for elevations of about 10 degrees and more, where a
  flat layered atmosphere holds); the extra over zenith is
  ``zenith_attenuation_db`` x (1 / sin(el) - 1).

Rain is not in it: a fade is the DVB-S2 model's ``rain`` table, on top of a
constant, or a series computed elsewhere.
"""

from __future__ import annotations

import math

from .walker import BentPipe

__all__ = ["esn0_db", "esn0_schedule"]

#: Below this elevation the cosecant law overstates the atmosphere's path.
MIN_COSECANT_ELEVATION_DEG = 5.0


def esn0_db(
    esn0_zenith_db: float,
    altitude_m: float,
    range_m: float,
    elevation_deg: float,
    zenith_attenuation_db: float = 0.0,
) -> float:
    """Es/N0 (dB) at slant range ``range_m`` and ``elevation_deg`` of a
    terminal whose Es/N0 is ``esn0_zenith_db`` with the satellite at its
    zenith at ``altitude_m``."""
    if altitude_m <= 0 or range_m <= 0:
        raise ValueError(f"altitude_m {altitude_m} and range_m {range_m} must be > 0")
    if zenith_attenuation_db < 0:
        raise ValueError(f"zenith_attenuation_db: {zenith_attenuation_db} must be >= 0")
    if elevation_deg < MIN_COSECANT_ELEVATION_DEG:
        raise ValueError(
            f"elevation_deg: {elevation_deg:.1f} is below {MIN_COSECANT_ELEVATION_DEG} degrees, "
            "where the cosecant law of the atmosphere's loss does not hold"
        )
    spreading = 20 * math.log10(range_m / altitude_m)
    atmosphere = zenith_attenuation_db * (1 / math.sin(math.radians(elevation_deg)) - 1)
    return esn0_zenith_db - spreading - atmosphere


def esn0_schedule(
    path: BentPipe,
    station: str,
    esn0_zenith_db: float,
    altitude_m: float,
    zenith_attenuation_db: float = 0.0,
) -> list[list[float]]:
    """``[[t_s, esn0_db], ...]`` per sample of ``path`` for the terminal at
    ``station`` ("a" or "b": the ends given to the bent pipe), as a DVB-S2
    carrier's ``esn0_schedule``. Values rounded to 0.01 dB."""
    if station not in ("a", "b"):
        raise ValueError(f"station: {station!r} must be 'a' or 'b'")
    i = 0 if station == "a" else 1
    return [
        [t, round(esn0_db(esn0_zenith_db, altitude_m, r[i], e[i], zenith_attenuation_db), 2)]
        for t, r, e in zip(path.times_s, path.ranges_m, path.elevations_deg, strict=True)
    ]
