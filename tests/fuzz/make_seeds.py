#!/usr/bin/python3
"""Writes each fuzz target's seed corpus under OUT/<target>/ from the repository's golden files
(no PyTorch needed): load_fuzzer's inputs are a mode byte (0: a data.pkl stream, 1: a .pt file,
2: a .safetensors file) and the file; dcp_metadata_fuzzer's the golden .metadata pickles;
tcp_store_fuzzer's what each client of the recorded PyTorch 1.13 transcript sent, plus a v2
client's opening; idx_fuzzer's small idx files of every element type, plain and gzipped;
python_args_fuzzer's a call of each family (python_args_harness.py: a factory, a Tensor method, a
functional) with small integer, tensor, tuple and keyword arguments.

usage: make_seeds.py REPO_ROOT OUT
"""
import gzip
import pathlib
import struct
import sys
import zipfile


def write(out, target, name, data):
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def main():
    root, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    golden = root / 'tests' / 'golden'

    for f in sorted((golden / 'checkpoints').iterdir()):
        data = f.read_bytes()
        if f.suffix == '.pt':
            write(out, 'load_fuzzer', f.stem + '.pt', b'\x01' + data)
            try:
                with zipfile.ZipFile(f) as z:
                    for n in z.namelist():
                        if n.endswith('data.pkl'):
                            write(out, 'load_fuzzer', f.stem + '.pkl', b'\x00' + z.read(n))
            except zipfile.BadZipFile:
                pass  # a legacy (non-zip) file: its .pt seed is enough
        elif f.suffix == '.safetensors':
            write(out, 'load_fuzzer', f.stem + '.safetensors', b'\x02' + data)

    for i, f in enumerate(sorted((golden / 'dcp').glob('*/.metadata'))):
        write(out, 'dcp_metadata_fuzzer', f'metadata_{i}', f.read_bytes())

    # Each client's bytes of the transcript ("<client> c>s <hex>"), in order.
    sent = {}
    for line in (golden / 'tcpstore' / 'torch-1.13.txt').read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == 'c>s':
            sent.setdefault(parts[0], bytearray()).extend(bytes.fromhex(parts[2]))
    for client, data in sent.items():
        write(out, 'tcp_store_fuzzer', f'v1_client_{client}', bytes(data))
    key = b'/a'
    v2 = (b'\x00' + struct.pack('<I', 0x3C85F7CE) +                      # validate
          b'\x01' + struct.pack('<Q', len(key)) + key + struct.pack('<Q', 1) + b'1' +  # set
          b'\x03' + struct.pack('<Q', len(key)) + key +                  # get
          b'\x0d' + struct.pack('<I', 7))                                # ping
    write(out, 'tcp_store_fuzzer', 'v2_client', v2)

    types = {0x08: ('B', 1), 0x09: ('b', 1), 0x0B: ('>h', 2), 0x0C: ('>i', 4), 0x0D: ('>f', 4),
             0x0E: ('>d', 8)}
    for code, (fmt, _) in types.items():
        dims = (2, 3, 2) if code == 0x08 else (3, 2)
        n = 1
        for d in dims:
            n *= d
        head = bytes([0, 0, code, len(dims)]) + b''.join(struct.pack('>i', d) for d in dims)
        body = b''.join(struct.pack(fmt if fmt.startswith('>') else '>' + fmt, v % 100)
                        for v in range(n))
        write(out, 'idx_fuzzer', f'type_{code:02x}', head + body)
        write(out, 'idx_fuzzer', f'type_{code:02x}.gz', gzip.compress(head + body, mtime=0))

    # python_args_harness.run's layout: family, callable (a method: the pool tensor, then the
    # name), argument count, each argument (kind byte, then its bytes), keyword count, each
    # keyword (name, value). Starting points only: if the harness's lists change, these decode
    # into other calls, which is as good a seed.
    small = lambda v: bytes([2, v + 8])             # a small integer
    pool = lambda i: bytes([13, i])                 # the pool's i-th tensor
    calls = {
        'zeros_2_3': bytes([0, 0, 2]) + small(2) + small(3) + bytes([0]),
        'view_minus_1': bytes([1, 0, 0, 1]) + small(-1) + bytes([0]),
        'getitem_slice': bytes([1, 0, 36, 1]) + bytes([11]) + small(0) + small(2) + bytes([0, 0]),
        'add_tensor': bytes([1, 1, 25, 1]) + pool(0) + bytes([0]),
        'pad_tuple': bytes([2, 0, 2]) + pool(0) + bytes([8, 2]) + small(1) + small(1) + bytes([0]),
        'sum_keepdim': bytes([1, 0, 15, 1]) + small(1) + bytes([1, 1, 1, 1]),
    }
    for name, data in calls.items():
        write(out, 'python_args_fuzzer', name, data)


if __name__ == '__main__':
    main()
