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
