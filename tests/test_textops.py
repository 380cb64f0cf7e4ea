"""RE2 over many strings: several patterns searched apart give what their alternation gives."""
import re

from pipeline.predict import RELEVANT
from pipeline.rules import load_rules
from pipeline.textops import re2_search, re2_search_any

LINES = [
    "epoch 3 step 10 loss 0.41",
    "OSError: (External) CUDA error(35), CUDA driver version is insufficient for CUDA runtime version.",
    "Traceback (most recent call last):",
    "W1130 10:00:00.000000  1 gpu_resources.cc:119] Please NOTE: device: 0, GPU Compute Capability: 8.6",
    "ImportError: libGL.so.1: cannot open shared object file: No such file or directory",
    "",
    "总线错误 (核心已转储)",
    "I1130 analysis_predictor.cc:1500] ======= optimize end =======",
]


def test_any_of_the_patterns_is_their_alternation():
    patterns = (RELEVANT.pattern, *load_rules().prefilter)
    got = re2_search_any(LINES, patterns, ignore_case=True)
    assert got == re2_search(LINES, "|".join(patterns), ignore_case=True)
    assert got == [any(re.search(p, s, re.I) for p in patterns) for s in LINES]
    assert got[1] and got[4] and not got[0] and not got[5]


def test_no_pattern_matches_nothing():
    assert re2_search_any(LINES, ()) == [False] * len(LINES)


def test_arrow_strings_keeps_every_string_whatever_its_characters():
    from pipeline.textops import arrow_strings
    ascii_only = ["epoch 1", "", None, "OSError: x"]
    mixed = ["总线错误 (核心已转储)", None, "é", "plain", "x\ud800y"]   # a lone surrogate from a bad decode
    assert arrow_strings(ascii_only).to_pylist() == ["epoch 1", "", "", "OSError: x"]
    assert arrow_strings(mixed).to_pylist() == ["总线错误 (核心已转储)", "", "é", "plain", "x?y"]
    # offsets are bytes, not characters: a match after a multi-byte string lands on the right row
    assert re2_search(["总线错误", "Bus error", "é"], "Bus error") == [False, True, False]
