# Records PyTorch's TCPStore protocol as PyTorch speaks it, for tests/distributed/
# tcp_store_protocol_test.cpp to replay without torch: PyTorch's own client talks to PyTorch's
# own server through a logging proxy, then a few requests its Python API cannot make (check,
# watch_key, the probe of Note [Which server is this]) go raw to the same server.
#   /usr/bin/python3 tests/golden/record_tcpstore_transcript.py tests/golden/tcpstore/torch-1.13.txt
# Output lines: "# <what the next lines do>", or "<conn> c>s|s>c <hex>": the bytes one connection
# carried in one direction, consecutive pieces merged. conn 0 is the PyTorch client's request
# connection; conns >= 10 are the raw ones (not PyTorch's client bytes).
import datetime
import socket
import sys
import threading
import time

import torch
import torch.distributed as dist

log, lock = [], threading.Lock()


def note(text):
    with lock:
        log.append(("#", text))


def record(conn, direction, data):
    with lock:
        if log and log[-1][:2] == (conn, direction):
            log[-1] = (conn, direction, log[-1][2] + data)
        else:
            log.append((conn, direction, data))


def pump(conn, direction, source, sink):
    while True:
        data = source.recv(65536)
        if not data:
            sink.shutdown(socket.SHUT_WR)
            return
        record(conn, direction, data)  # before forwarding: the log keeps cause before effect
        sink.sendall(data)


def proxy(listener, server_port):
    conn = 0
    while True:
        client, _ = listener.accept()
        upstream = socket.create_connection(("127.0.0.1", server_port))
        for pair in ((client, upstream, "c>s"), (upstream, client, "s>c")):
            threading.Thread(target=pump, args=(conn, pair[2], pair[0], pair[1]),
                             daemon=True).start()
        conn += 1


def settle():
    time.sleep(0.2)  # lets the proxy log a reply before the next request is made


def main(out_path):
    timeout = datetime.timedelta(seconds=5)
    server = dist.TCPStore("127.0.0.1", 0, None, True, timeout, wait_for_workers=False)
    listener = socket.create_server(("127.0.0.1", 0))
    threading.Thread(target=proxy, args=(listener, server.port), daemon=True).start()
    client = dist.TCPStore("127.0.0.1", listener.getsockname()[1], None, False, timeout)
    settle()
    steps = [
        ("set('a', '1'); set('bytes', b'x\\0y')",
         lambda: (client.set("a", "1"), client.set("bytes", b"x\0y"))),
        ("get('a')", lambda: client.get("a")),
        ("add('n', 5)", lambda: client.add("n", 5)),
        ("add('n', -2)", lambda: client.add("n", -2)),
        ("get('n')", lambda: client.get("n")),
        ("compare_set('k', 'x', 'y')", lambda: client.compare_set("k", "x", "y")),
        ("compare_set('k', '', 'first')", lambda: client.compare_set("k", "", "first")),
        ("compare_set('k', 'first', 'second')", lambda: client.compare_set("k", "first", "second")),
        ("wait(['a', 'n'])", lambda: client.wait(["a", "n"])),
        ("num_keys()", lambda: client.num_keys()),
        ("delete_key('a')", lambda: client.delete_key("a")),
        ("delete_key('a')", lambda: client.delete_key("a")),
        ("num_keys()", lambda: client.num_keys()),
    ]
    for what, step in steps:
        note("client." + what)
        step()
        settle()

    # Raw v1 requests, encoded from PyTorch 1.13's TCPStore.cpp, answered by its server.
    def string(s):
        return len(s).to_bytes(8, "little") + s

    def keys(*ks):
        return len(ks).to_bytes(8, "little") + b"".join(string(k) for k in ks)

    raw = {}
    for conn in (10, 11):
        raw[conn] = socket.create_connection(("127.0.0.1", server.port))
        threading.Thread(target=pump_replies, args=(conn, raw[conn]), daemon=True).start()

    def send(conn, what, data):
        note(what)
        record(conn, "c>s", data)
        raw[conn].sendall(data)
        settle()

    send(10, "raw check(['/n']) and check(['/n', '/zz'])",
         b"\x04" + keys(b"/n") + b"\x04" + keys(b"/n", b"/zz"))
    send(10, "raw check(['ember/extensions']): the probe's key, unknown to PyTorch",
         b"\x04" + keys(b"ember/extensions"))
    send(11, "raw watch_key('/w') on a second connection", b"\x07" + string(b"/w"))
    send(10, "raw set('/w', 'v'): the watcher hears KEY_CREATED", b"\x00" + string(b"/w") + string(b"v"))
    send(10, "raw add('/w', 1) to text: the server drops the connection", b"\x03" + string(b"/w") +
         (1).to_bytes(8, "little"))
    with open(out_path, "w") as out:
        out.write("# PyTorch %s's TCPStore client and server (v1), recorded by "
                  "tests/golden/record_tcpstore_transcript.py\n" % torch.__version__)
        for entry in log:
            out.write("# %s\n" % entry[1] if entry[0] == "#" else
                      "%d %s %s\n" % (entry[0], entry[1], entry[2].hex()))


def pump_replies(conn, sock):
    while True:
        data = sock.recv(65536)
        if not data:
            note("the server closed connection %d" % conn)
            return
        record(conn, "s>c", data)


if __name__ == "__main__":
    main(sys.argv[1])
