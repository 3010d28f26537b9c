#!/usr/bin/python3
"""One definition of everything in the static libraries: no symbol may be defined strongly (code
or data: nm types T, D, B, R, G, S, i) by two members of libember.a and libember_libtorch.a. Two such definitions are
an ODR violation the archive hides — the linker takes whichever member it needs first, so the
program works until some other program pulls both (a variable template specialised in a header
without `inline`, a function defined in two unity batches, a CPU level's copy of a header
function not renamed). Weak definitions (W, V: inline functions, templates) are merged by
design; the CPU levels' renaming of theirs is checked by check_level_symbols.cmake.

usage: check_one_definition.py NM ARCHIVE...
       check_one_definition.py --self-test      (a listing with a duplicate must fail)
"""
import collections
import subprocess
import sys

STRONG = set('TDBRGSi')


def duplicates(listing):
    """{symbol: [members]} of the symbols two members define strongly, from `nm -A -p` output
    (GNU nm: `lib.a:m.o:0000 T sym`; llvm-nm: `lib.a:m.o: 0000 T sym`)."""
    defined = collections.defaultdict(list)
    for line in listing.splitlines():
        head, sep, rest = line.partition('.o:')
        if not sep:
            continue
        fields = rest.split(None, 2)
        if len(fields) == 3 and fields[1] in STRONG:
            defined[fields[2]].append(head + '.o')
    return {s: m for s, m in defined.items() if len(m) > 1}


def report(found):
    for symbol, members in sorted(found.items()):
        print(f'{symbol}: defined in {", ".join(members)}')
    return 1 if found else 0


def main():
    if sys.argv[1:] == ['--self-test']:
        listing = ('libember.a:unity_0_cxx.cxx.o:0000000000000010 R _ZN5ember7kDigitsINS_4HalfEEE\n'
                   'libember.a:unity_1_cxx.cxx.o: 0000000000000020 R _ZN5ember7kDigitsINS_4HalfEEE\n'
                   'libember.a:unity_1_cxx.cxx.o:0000000000000000 W _ZN5ember6Tensor5dtypeEv\n'
                   'libember.a:unity_2_cxx.cxx.o:0000000000000000 W _ZN5ember6Tensor5dtypeEv\n')
        found = duplicates(listing)
        ok = list(found) == ['_ZN5ember7kDigitsINS_4HalfEEE']
        print('self test:', 'the duplicate found, the weak pair allowed' if ok else found)
        return 0 if ok else 1
    nm, archives = sys.argv[1], sys.argv[2:]
    listing = ''.join(subprocess.run([nm, '-A', '-p', '--defined-only', a], check=True,
                                     capture_output=True, text=True).stdout for a in archives)
    found = duplicates(listing)
    if found:
        print(f'{len(found)} symbols defined by more than one member of {" ".join(archives)}:')
        return report(found)
    print(f'{" ".join(archives)}: every strong symbol has one definition')
    return 0


if __name__ == '__main__':
    sys.exit(main())
