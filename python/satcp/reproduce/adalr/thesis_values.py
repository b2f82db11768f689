"""Numbers transcribed from the TCP-ADaLR thesis (M. Omueti, SFU), in one
place. The thesis's statements in prose are with the experiment that tests
them (:mod:`.ideal`, :mod:`.congestion`, :mod:`.lossy_claims`,
:mod:`.fairness`)."""

from __future__ import annotations

from .scenarios import VARIANTS

#: Table 5.1: RTT (ms) -> FTP 50 MB download response time (s), TCP SACK,
#: delayed ACK.
TABLE_5_1: dict[int, float] = {
    25: 251.9,
    50: 252.1,
    100: 252.5,
    200: 253.5,
    250: 272.7,
    500: 470.1,
}

# Tables 7.5-7.10, seconds: per variant in the order of VARIANTS (TCP-ADaLR
# SACK, TCP-ADaLR NewReno, TCP SACK, TCP NewReno), (delayed ACK enabled,
# disabled). 7.5-7.7 and 7.9: FTP download response time (Table 7.9's
# heading says "Page response time"; its values are FTP download times);
# 7.8 and 7.10: HTTP page response time.
_RESPONSE_TIMES = {
    "7.5": ((360.6, 333.4), (360.6, 333.4), (470.1, 463.5), (470.1, 463.5)),
    "7.6": ((392.6, 357.8), (392.6, 357.8), (533.5, 526.3), (533.5, 526.3)),
    "7.7": ((283.0, 235.4), (283.0, 235.4), (462.3, 459.7), (462.3, 459.7)),
    "7.8": ((4.4, 3.9), (4.4, 3.9), (4.9, 4.3), (4.9, 4.3)),
    "7.9": ((1212.7, 1226.7), (1228.0, 1232.4), (1224.8, 1226.7), (1216.6, 1226.7)),
    "7.10": ((11.0, 10.3), (11.0, 11.1), (13.8, 11.7), (16.6, 11.7)),
}
#: table -> variant -> (delayed ACK enabled, disabled), seconds.
RESPONSE_TIMES: dict[str, dict[str, tuple[float, float]]] = {
    table: dict(zip((v for v, _ in VARIANTS), values, strict=True))
    for table, values in _RESPONSE_TIMES.items()
}


def thesis_value(table: str, variant: str, delayed_ack: bool) -> float:
    """A cell of Tables 7.5-7.10 (seconds)."""
    return RESPONSE_TIMES[table][variant][0 if delayed_ack else 1]


# Tables 7.11, 7.12, 7.14: average throughput (bytes/s) of the six
# connections, by the thesis's RTT label (ms).
_FAIRNESS_RTTS_MS = (25, 50, 100, 300, 400, 500)
_FAIRNESS_THROUGHPUT = {
    "fairness_adalr_newreno": (283_404.6, 281_750.6, 268_984.6, 195_099.8, 175_343.8, 160_897.4),
    "fairness_newreno": (322_418.0, 300_629.1, 263_129.2, 158_601.5, 129_560.8, 109_239.5),
    "friendliness": (253_202.9, 231_009.8, 206_831.7, 211_369.5, 188_513.4, 177_309.9),
}
#: fairness scenario -> RTT label (ms) -> average throughput (bytes/s).
FAIRNESS_THROUGHPUT: dict[str, dict[int, float]] = {
    name: dict(zip(_FAIRNESS_RTTS_MS, values, strict=True))
    for name, values in _FAIRNESS_THROUGHPUT.items()
}
#: Tables 7.13 and 7.15: Jain's index (Eq. 7.4) and max-min fairness (Eq. 7.5).
FAIRNESS_INDEX: dict[tuple[str, str], float] = {
    ("fairness_adalr_newreno", "jain_fairness_index"): 0.9510,
    ("fairness_adalr_newreno", "maxmin_fairness"): 0.5677,
    ("fairness_newreno", "jain_fairness_index"): 0.8650,
    ("fairness_newreno", "maxmin_fairness"): 0.3388,
    ("friendliness", "friendliness_index"): 0.9859,
    ("friendliness", "maxmin_fairness"): 0.7000,
}
#: fairness scenario -> (table of its throughputs, table of its indices).
FAIRNESS_TABLES: dict[str, tuple[str, str]] = {
    "fairness_adalr_newreno": ("7.11", "7.13"),
    "fairness_newreno": ("7.12", "7.13"),
    "friendliness": ("7.14", "7.15"),
}
