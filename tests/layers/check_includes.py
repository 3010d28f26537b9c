#!/usr/bin/python3
"""Fails when a file of src/ or a public header (include/ember/) includes a header of a higher
layer than its own.

The layers come from the table in docs/layers.md (layer, src folder, public headers). Each
`#include "..."` of src/ and include/ember/ is resolved the way the compiler finds it (next to the file, then src/,
then include/), and both ends are placed in a layer by the longest matching folder or public
header of the table. A folder or public header the table does not place is an error too, so a
new one must be given a layer. `--skip FOLDER` leaves out the files of one src folder.
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
ROW = re.compile(r'^\|\s*(\d+)\s*\|\s*`?([\w/]*)`?\s*\|([^|]*)\|')


def read_layers(doc):
    """{'src/<folder>': layer, 'include/ember/<header or folder/>': layer} from the table."""
    places = {}
    with open(doc, encoding='utf-8') as f:
        for line in f:
            m = ROW.match(line)
            if not m:
                continue
            layer = int(m.group(1))
            if m.group(2):
                places['src/' + m.group(2) + '/'] = layer
            for header in re.findall(r'`([^`]+)`', m.group(3)):
                places['include/ember/' + header] = layer
    return places


def layer_of(path, places):
    """(layer, key) of the longest table entry that is `path` or a folder above it."""
    best = None
    for key, layer in places.items():
        if path == key or (key.endswith('/') and path.startswith(key)):
            if best is None or len(key) > len(best[1]):
                best = (layer, key)
    return best


def resolve(root, including_dir, name):
    for base in (including_dir, os.path.join(root, 'src'), os.path.join(root, 'include')):
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(candidate):
            return os.path.relpath(candidate, root)
    return None  # a system or third-party header


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--root', default=os.path.join(os.path.dirname(__file__), '..', '..'))
    parser.add_argument('--skip', action='append', default=[], help='src folder to leave out')
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    places = read_layers(os.path.join(root, 'docs', 'layers.md'))
    skipped = tuple('src/' + s.strip('/') + '/' for s in args.skip)
    problems, files = [], 0
    walked = [(d, n) for top in ('src', os.path.join('include', 'ember'))
              for d, _, n in sorted(os.walk(os.path.join(root, top)))]
    for directory, names in walked:
        for name in sorted(names):
            path = os.path.relpath(os.path.join(directory, name), root)
            if path.startswith(skipped) or os.path.dirname(path) == 'src':
                continue  # src/library_pch.h is the build's, in no layer
            files += 1
            own = layer_of(path, places)
            if own is None:
                problems.append(f'{path}: its folder has no layer in docs/layers.md')
                continue
            with open(os.path.join(root, path), encoding='utf-8', errors='replace') as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    target = m and resolve(root, directory, m.group(1))
                    if not target:
                        continue
                    theirs = layer_of(target, places)
                    if theirs is None:
                        problems.append(f'{path}:{number}: {target} has no layer in docs/layers.md')
                    elif theirs[0] > own[0]:
                        problems.append(f'{path}:{number}: includes {target} (layer {theirs[0]}, '
                                        f'{theirs[1]}) from layer {own[0]} ({own[1]})')
    for p in problems:
        print(p)
    print(f'{files} files, {len(problems)} upward or unplaced includes')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
