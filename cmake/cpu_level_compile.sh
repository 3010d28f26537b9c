#!/bin/sh
# The compiler launcher of the per-level kernel objects (Note [CPU levels] in
# src/backend/cpu/dispatch.h): `cpu_level_compile.sh <level> <compile command...>` compiles, then
# renames each weak function the object defines outside ember::cpu::<level> — inline functions
# and template instances from headers that cannot live in the level's namespace (ember::Tensor's
# accessors, std::vector's growth, ...) — to <symbol>.<level>. Without this, the linker keeps one
# copy of each such function for the whole program, and a copy compiled with AVX-512 could serve
# the baseline level's callers (SIGILL on a CPU without it). Renamed, each level calls its own
# copy. Weak data (static locals of inline functions, vtables) stays shared: it holds no code.
# tests/backend/cpu/check_level_symbols.cmake checks the result.
level=$1
shift
"$@" || exit $?
out=""
prev=""
for arg in "$@"; do
  [ "$prev" = "-o" ] && out=$arg
  prev=$arg
done
# A precompiled header (the level's copy of src/library_pch.h) holds no code to rename.
case "$out" in
  ""|*.gch|*.pch) exit 0 ;;
esac
renames="$out.renames"
# Symbol table order (-p) in both listings, so line i of each is the same symbol.
nm -p --defined-only "$out" > "$renames.raw" || exit 1
nm -p -C --defined-only "$out" | paste -d '\t' "$renames.raw" - |
  awk -F '\t' -v ns="ember::cpu::$level::" -v sfx=".$level" '{
    split($1, m, " "); type = m[2]; name = m[3]
    demangled = substr($2, index($2, " " type " ") + 3)
    if (type == "W" && index(demangled, ns) != 0) next
    if (type != "W") next
    print name, name sfx
    # A constructor or destructor sits in the COMDAT group of its C5/D5 name, which is no
    # symbol nm lists: rename the group too, or the linker may keep the group of another level
    # and leave the renamed C1/C2/D1/D2 of this object pointing into a discarded one.
    if (match(name, /[CD][12]E/)) {
      group = substr(name, 1, RSTART) "5" substr(name, RSTART + 2)
      print group, group sfx
    }
  }' | sort -u > "$renames" || exit 1
if [ -s "$renames" ]; then
  objcopy --redefine-syms="$renames" "$out" || exit 1
fi
rm -f "$renames" "$renames.raw"
