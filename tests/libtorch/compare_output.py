#!/usr/bin/env python3
"""Compares a LibTorch program's output on ember with LibTorch's (the golden file).

The texts must match token for token, except that numbers may differ by a relative 1e-4 or an
absolute 1e-5 (float32 sums in another order; printed with LibTorch's precision). A golden line
`#ignore-line` matches any one line: for output that is not reproducible (timings, addresses).
    compare_output.py <golden> <actual>
"""
import math
import re
import sys

NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf)")
TOKEN = re.compile(NUMBER.pattern + r"|\S")


def close(a, b):
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return x == y or abs(x - y) <= 1e-5 + 1e-4 * max(abs(x), abs(y))


def same_line(golden, actual):
    g, a = TOKEN.findall(golden), TOKEN.findall(actual)
    if len(g) != len(a):
        return False
    for x, y in zip(g, a):
        if NUMBER.fullmatch(x) and NUMBER.fullmatch(y):
            if not close(x, y):
                return False
        elif x != y:
            return False
    return True


def main(golden_path, actual_path):
    golden = open(golden_path).read().splitlines()
    actual = open(actual_path).read().splitlines()
    for i, g in enumerate(golden):
        a = actual[i] if i < len(actual) else "<end of output>"
        if g == "#ignore-line" and i < len(actual):
            continue
        if not same_line(g, a):
            print(f"{actual_path}:{i + 1}: differs from LibTorch's output ({golden_path}):")
            print(f"  LibTorch: {g}\n  ember:    {a}")
            return 1
    if len(actual) > len(golden):
        print(f"{actual_path}: {len(actual) - len(golden)} more lines than LibTorch's output, "
              f"first: {actual[len(golden)]}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
