// ember's TCPStore speaks PyTorch's TCPStore protocol (src/distributed/tcp_store_protocol.h):
//  - replays of PyTorch 1.13's own client and server bytes (tests/golden/tcpstore/torch-1.13.txt,
//    recorded by tests/golden/record_tcpstore_transcript.py), without torch: ember's server must
//    answer PyTorch's requests byte for byte, and ember's client must send PyTorch's requests;
//  - the v2 dialect (a VALIDATE handshake, shifted codes, ping, multi_get/multi_set, append,
//    cancel_wait), as bytes written out from PyTorch's 2.x sources: nothing here records them;
//  - both directions against Debian's PyTorch 1.13 itself (skipped without python3-torch).
//  - the worker count PyTorch's TCPStore keeps in "init/" (Note [PyTorch's init/ counter]): on
//    ember's server, and an ember rank joining a PyTorch rank 0's store (without torch: skipped).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <utility>

#include "distributed/socket.h"
#include "distributed/tcp_store_workers.h"
#include "ember/distributed/process_group.h"
#include "ember/distributed/store.h"
#include "golden_dir.h"
#include "serialize/checkpoint_helpers.h"
#include "test_support.h"

namespace ember::dist {
namespace {

using namespace std::chrono_literals;
using test::message_of;

std::string unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

// One line of a transcript: what a connection carried one way, or a comment (conn = -1).
struct Entry {
  int conn = -1;
  bool to_server = false;
  std::string bytes, note;
};

std::vector<Entry> read_transcript(const std::string& file) {
  std::ifstream in(test::golden_path("tcpstore/" + file));
  EXPECT_TRUE(in) << "cannot read " << file;
  std::vector<Entry> out;
  for (std::string line; std::getline(in, line);) {
    Entry e;
    if (line.rfind("# ", 0) == 0) {
      e.note = line.substr(2);
    } else {
      std::istringstream fields(line);
      std::string direction, hex;
      fields >> e.conn >> direction >> hex;
      e.to_server = direction == "c>s";
      e.bytes = unhex(hex);
    }
    out.push_back(e);
  }
  return out;
}

struct Socket {
  int fd = -1;
  explicit Socket(int f) : fd(f) {}
  Socket(Socket&& other) noexcept : fd(std::exchange(other.fd, -1)) {}
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
  void send(const std::string& bytes) {
    ASSERT_TRUE(net::send_all(fd, bytes.data(), bytes.size()));
  }
  std::string read(size_t n, std::chrono::milliseconds within = 5s) {
    std::string out(n, '\0');
    const auto got = net::recv_exact(fd, out.data(), n, net::Clock::now() + within);
    return got == net::Received::ok ? out : got == net::Received::closed ? "<closed>" : "<timeout>";
  }
};

Socket connect_to(uint16_t port) {
  return Socket(net::connect_until("test", "127.0.0.1", port, net::Clock::now() + 5s, 5s));
}

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) out += {digits[c >> 4], digits[c & 15]};
  return out;
}

TEST(TcpStoreTranscript, EmberServerAnswersPyTorch113sRequestsAsItsServerDid) {
  TCPStore server("127.0.0.1", 0, {.is_master = true, .timeout = 5s});
  std::map<int, std::unique_ptr<Socket>> conns;
  std::string last_note;
  for (const Entry& e : read_transcript("torch-1.13.txt")) {
    if (e.conn < 0) {
      if (e.note.rfind("the server closed connection ", 0) == 0) {
        EXPECT_EQ(conns.at(std::stoi(e.note.substr(29)))->read(1), "<closed>") << last_note;
      }
      last_note = e.note;
      continue;
    }
    auto& conn = conns[e.conn];
    if (!conn) conn = std::make_unique<Socket>(connect_to(server.port()));
    if (e.to_server) {
      conn->send(e.bytes);
    } else {
      // The probe's key is the one answer that differs (Note [Which server is this]).
      const bool probe = last_note.find("the probe's key") != std::string::npos;
      EXPECT_EQ(hex(conn->read(e.bytes.size())), probe ? "00" : hex(e.bytes)) << last_note;
    }
  }
}

// A server that plays PyTorch 1.13's part of conn 0 of the transcript: it checks each request
// against PyTorch's client's bytes and answers with PyTorch's server's bytes.
TEST(TcpStoreTranscript, EmberClientSendsWhatPyTorch113sClientSent) {
  uint16_t port = 0;
  const int listener = net::listen_on("test", "127.0.0.1", 0, &port);
  std::vector<std::string> mismatches;
  std::thread server([&] {
    {  // the probe: answered "not ready", as 1.13 does for a key nobody set
      Socket probe(::accept(listener, nullptr, nullptr));
      probe.read(1 + 8 + 8 + 16);
      probe.send(unhex("01"));
    }
    Socket conn(::accept(listener, nullptr, nullptr));
    std::string note;
    for (const Entry& e : read_transcript("torch-1.13.txt")) {
      if (e.conn < 0) note = e.note;
      if (e.conn != 0) continue;
      if (!e.to_server) {
        conn.send(e.bytes);
      } else if (const std::string got = conn.read(e.bytes.size()); got != e.bytes) {
        mismatches.push_back(note + ": sent " + hex(got) + ", PyTorch sent " + hex(e.bytes));
        return;
      }
    }
  });
  {
    TCPStore client("127.0.0.1", port, {.timeout = 5s});
    client.set("a", "1");
    client.set("bytes", std::string("x\0y", 3));
    EXPECT_EQ(client.get("a"), "1");
    EXPECT_EQ(client.add("n", 5), 5);
    EXPECT_EQ(client.add("n", -2), 3);
    EXPECT_EQ(client.get("n"), "3");
    EXPECT_EQ(client.compare_set("k", "x", "y"), "x");
    EXPECT_EQ(client.compare_set("k", "", "first"), "first");
    EXPECT_EQ(client.compare_set("k", "first", "second"), "second");
    client.wait({"a", "n"});
    EXPECT_EQ(client.num_keys(), 4);
    EXPECT_TRUE(client.delete_key("a"));
    EXPECT_FALSE(client.delete_key("a"));
    EXPECT_EQ(client.num_keys(), 3);
  }
  server.join();
  ::close(listener);
  EXPECT_TRUE(mismatches.empty()) << mismatches.front();
}

// v2, from PyTorch's TCPStoreBackend.hpp (VALIDATE=0, SET=1, COMPARE_SET=2, GET=3, ADD=4,
// CHECK=5, WAIT=6, GETNUMKEYS=7, DELETE_KEY=8, APPEND=9, MULTI_GET=10, MULTI_SET=11,
// CANCEL_WAIT=12, PING=13) and its libuv backend's replies; "/k" is 02000000000000002f6b.
TEST(TcpStoreV2, EmberServerServesAValidatedClient) {
  TCPStore server("127.0.0.1", 0, {.is_master = true, .timeout = 5s});
  Socket c = connect_to(server.port());
  const std::string k = "02000000000000002f6b", one = "010000000000000031";
  c.send(unhex("00cef7853c"));  // VALIDATE, magic
  c.send(unhex("0d78563412"));  // PING 0x12345678
  EXPECT_EQ(hex(c.read(4)), "78563412");
  c.send(unhex("01" + k + one));                   // SET /k = "1"
  c.send(unhex("09" + k + "010000000000000032"));  // APPEND "2"
  c.send(unhex("03" + k));                         // GET /k
  EXPECT_EQ(hex(c.read(10)), "02000000000000003132");
  c.send(unhex("04" + k + "0500000000000000"));   // ADD 5
  EXPECT_EQ(hex(c.read(8)), "1100000000000000");  // 12 + 5
  c.send(
      unhex("0b0100000000000000"
            "02000000000000002f6d" +
            one));                                                   // MULTI_SET /m = "1"
  c.send(unhex("0a0200000000000000" + k + "02000000000000002f6d"));  // MULTI_GET /k /m
  EXPECT_EQ(hex(c.read(10 + 9)), "02000000000000003137" + one);
  c.send(unhex("050100000000000000" + k));  // CHECK /k
  EXPECT_EQ(hex(c.read(1)), "00");
  c.send(unhex("07"));  // GETNUMKEYS
  EXPECT_EQ(hex(c.read(8)), "0200000000000000");
  c.send(
      unhex("060100000000000000"
            "02000000000000002f77"));  // WAIT /w (absent)
  c.send(unhex("0c"));                 // CANCEL_WAIT
  EXPECT_EQ(hex(c.read(1)), "01");
  c.send(unhex("02" + k + "02000000000000003137" + one));  // COMPARE_SET 17 -> 1
  EXPECT_EQ(hex(c.read(9)), one);
  c.send(unhex("08" + k));  // DELETE_KEY
  EXPECT_EQ(hex(c.read(8)), "0100000000000000");
  EXPECT_EQ(server.num_keys(), 1);
}

// What one connection makes the server hold is bounded (wire::Reader): a string claimed longer
// than 64 MiB or a list of more than 128 Ki keys drops the connection at once instead of waiting
// for (and buffering) the bytes; the server goes on serving the others.
TEST(TcpStoreLimits, ClaimsBeyondTheBoundsDropTheConnection) {
  TCPStore server("127.0.0.1", 0, {.is_master = true, .timeout = 5s});
  Socket huge_key = connect_to(server.port());
  huge_key.send(unhex("00" "0000000800000000"));  // v1 SET, a key of 128 MiB
  EXPECT_EQ(huge_key.read(1), "<closed>");
  Socket many_keys = connect_to(server.port());
  many_keys.send(unhex("04" "0100020000000000"));  // v1 CHECK of 2^17 + 1 keys
  EXPECT_EQ(many_keys.read(1), "<closed>");
  // A multi_set's count allocates nothing before its pairs arrive (found by tcp_store_fuzzer:
  // 2^26 pairs claimed were 4 GiB reserved at once).
  Socket claims = connect_to(server.port());
  claims.send(unhex("00cef7853c" "0b" "0000000400000000"));  // VALIDATE; MULTI_SET of 2^26
  EXPECT_EQ(claims.read(1), "<closed>");                    // beyond 128 Ki pairs
  Socket pending = connect_to(server.port());
  pending.send(unhex("00cef7853c" "0b" "e803000000000000"));  // MULTI_SET of 1000, no pairs yet
  EXPECT_EQ(pending.read(1, 100ms), "<timeout>");             // waits for them, holding nothing
  server.set("still", "here");
  EXPECT_EQ(server.get("still"), "here");
}

// A v2 server ignores the probe (its first request is not VALIDATE): the client then opens every
// connection with VALIDATE and uses v2's codes.
TEST(TcpStoreV2, EmberClientValidatesWithAServerThatIgnoresTheProbe) {
  uint16_t port = 0;
  const int listener = net::listen_on("test", "127.0.0.1", 0, &port);
  std::string received;
  std::thread server([&] {
    { Socket probe(::accept(listener, nullptr, nullptr)); }  // closed unanswered
    Socket conn(::accept(listener, nullptr, nullptr));
    received = hex(conn.read(5 + 20));     // VALIDATE; SET /a "1"
    received += " " + hex(conn.read(19));  // WAIT /a
    conn.send(unhex("00"));
    received += " " + hex(conn.read(11));  // GET /a
    conn.send(unhex("010000000000000031"));
  });
  {
    TCPStore client("127.0.0.1", port, {.timeout = 5s});
    client.set("a", "1");
    EXPECT_EQ(client.get("a"), "1");
  }
  server.join();
  ::close(listener);
  EXPECT_EQ(received,
            "00cef7853c"
            "0102000000000000002f61010000000000000031"
            " 06010000000000000002000000000000002f61"
            " 0302000000000000002f61");
}

// /usr/bin/python3 running `script` with `args`, killed (with its whole group) when this object
// goes, or when the test process dies; reads its stdout line by line.
class Python {
 public:
  Python(const std::string& script, const std::vector<std::string>& args) {
    int out[2];
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      ::dup2(out[1], 1);
      std::vector<const char*> argv{"/usr/bin/python3", "-c", script.c_str()};
      for (const auto& a : args) argv.push_back(a.c_str());
      argv.push_back(nullptr);
      ::execv(argv[0], const_cast<char* const*>(argv.data()));
      ::_exit(127);
    }
    ::close(out[1]);
    out_ = out[0];
  }
  ~Python() {
    kill();
    ::close(out_);
  }
  /// The next line of output ("" after 30 s or at the end).
  std::string line() {
    std::string text;
    char c;
    pollfd p{out_, POLLIN, 0};
    while (::poll(&p, 1, 30000) == 1 && ::read(out_, &c, 1) == 1 && c != '\n') text += c;
    return text;
  }
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status_, 0);
    pid_ = -1;
  }
  /// Waits (up to 30 s) for the exit status.
  int wait() {
    for (int i = 0; i < 3000 && pid_ > 0; ++i) {
      if (::waitpid(pid_, &status_, WNOHANG) == pid_)
        pid_ = -1;
      else
        std::this_thread::sleep_for(10ms);
    }
    kill();
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  int status_ = 0;
};

TEST(TcpStorePyTorch113, PyTorchsClientAgainstEmbersServer) {
  if (!test::have_torch())
    GTEST_SKIP() << "python3-torch is not installed (apt install python3-torch)";
  TCPStore server("127.0.0.1", 0, {.is_master = true, .timeout = 10s});
  server.set("from_ember", "hello");
  Python torch(R"(
import datetime, sys, torch.distributed as d
s = d.TCPStore("127.0.0.1", int(sys.argv[1]), None, False, datetime.timedelta(seconds=10))
s.set("a", "1"); assert s.get("a") == b"1"
assert s.get("from_ember") == b"hello"
assert (s.add("n", 5), s.add("n", -2), s.get("n")) == (5, 3, b"3")
assert s.compare_set("k", "x", "y") == b"x" and s.compare_set("k", "", "first") == b"first"
assert s.compare_set("k", "first", "second") == b"second"
s.wait(["a", "n"])
n = s.num_keys()
assert s.delete_key("a") and not s.delete_key("a") and s.num_keys() == n - 1
s.set_timeout(datetime.timedelta(milliseconds=300))
try:
    s.get("never")
    sys.exit("get of a missing key did not time out")
except RuntimeError:
    pass
s.set("from_torch", "bye")
print("ok", flush=True)
)",
               {std::to_string(server.port())});
  EXPECT_EQ(torch.line(), "ok");
  EXPECT_EQ(torch.wait(), 0);
  EXPECT_EQ(server.get("from_torch"), "bye");
  EXPECT_EQ(server.get("k"), "second");
}

TEST(TcpStorePyTorch113, EmbersClientAgainstPyTorchsServer) {
  if (!test::have_torch())
    GTEST_SKIP() << "python3-torch is not installed (apt install python3-torch)";
  Python torch(R"(
import datetime, sys, time, torch.distributed as d
s = d.TCPStore("127.0.0.1", 0, None, True, datetime.timedelta(seconds=30), wait_for_workers=False)
s.set("from_torch", "hi")
print(s.port, flush=True)
assert s.get("from_ember") == b"there"
print("read", flush=True)
time.sleep(60)  # until the test kills it
)",
               {});
  const uint16_t port = static_cast<uint16_t>(std::stoi(torch.line()));
  TCPStore client("127.0.0.1", port, {.timeout = 10s});
  EXPECT_EQ(client.get("from_torch"), "hi");
  client.set("from_ember", "there");
  EXPECT_EQ(torch.line(), "read");
  EXPECT_EQ(client.add("n", 5), 5);
  EXPECT_EQ(client.compare_set("k", "", "first"), "first");
  EXPECT_TRUE(client.check({"n", "k"}));
  EXPECT_FALSE(client.check({"n", "nothing"}));
  EXPECT_EQ(client.num_keys(), 4);
  EXPECT_TRUE(client.delete_key("k"));
  client.watch_connection("gone/0");  // nothing to watch on PyTorch's server: a no-op
  const std::string waited = message_of([&] { client.wait({"n", "late"}, 200ms); });
  EXPECT_NE(waited.find("[TCPStore.wait] timed out after 200 ms waiting for key(s) 'late'"),
            std::string::npos)
      << waited;
  client.set("text", "abc");  // PyTorch's server drops the connection of an add to text
  const std::string added = message_of([&] { client.add("text", 1); });
  EXPECT_NE(added.find("key 'text' holds 'abc', which is not an integer"), std::string::npos)
      << added;
  EXPECT_EQ(client.get("n"), "5");  // still usable after both
  torch.kill();
  const std::string lost = message_of([&] { client.get("n"); });
  EXPECT_NE(
      lost.find("lost the connection to the store (store at 127.0.0.1:" + std::to_string(port)),
      std::string::npos)
      << lost;
}

// Note [PyTorch's init/ counter]: the count goes to the key "init/" as it is; ember's own keys
// travel as "/<key>", so "init/" is not the user's key "init/".
TEST(TcpStoreWorkerCount, CountsUnderTheUnprefixedKeyOnEmbersServer) {
  TCPStore server("127.0.0.1", 0, {.is_master = true, .timeout = 5s});
  TCPStore client("127.0.0.1", server.port(), {.timeout = 5s});
  EXPECT_EQ(detail::count_as_worker(server, "test", 0), 1);
  EXPECT_EQ(detail::count_as_worker(client, "test", 1), 2);
  EXPECT_EQ(server.num_keys(), 1);
  EXPECT_FALSE(client.check({"init/"}));
  EXPECT_EQ(client.add("init/", 5), 5);  // the user's key, beside the count
  EXPECT_EQ(detail::count_as_worker(client, "test", 1), 3);
}

// Against a v2 server (one that ignores the probe), the count is v2's ADD (code 4) of the
// unprefixed "init/" on a validated connection of its own.
TEST(TcpStoreWorkerCount, CountsOnAValidatedConnectionWithAV2Server) {
  uint16_t port = 0;
  const int listener = net::listen_on("test", "127.0.0.1", 0, &port);
  std::string received;
  std::thread server([&] {
    { Socket probe(::accept(listener, nullptr, nullptr)); }  // the client's: closed unanswered
    Socket client_connection(::accept(listener, nullptr, nullptr));
    received = hex(client_connection.read(5));               // VALIDATE
    { Socket probe(::accept(listener, nullptr, nullptr)); }  // the count's
    Socket conn(::accept(listener, nullptr, nullptr));
    received += " " + hex(conn.read(5 + 22));  // VALIDATE; ADD init/ 1
    conn.send(unhex("0700000000000000"));
  });
  {
    TCPStore client("127.0.0.1", port, {.timeout = 5s});
    EXPECT_EQ(detail::count_as_worker(client, "test", 1), 7);
  }
  server.join();
  ::close(listener);
  EXPECT_EQ(received,
            "00cef7853c 00cef7853c"
            "040500000000000000696e69742f0100000000000000");
}

// The mixed job of Note [PyTorch's init/ counter]: a PyTorch rank 0 (its TCPStore hosting, with
// world_size 2, as c10d's env:// rendezvous makes it) and an ember rank 1 joining through
// init_process_group. The PyTorch rank's constructor returns once the ember rank has counted
// itself (1.13 would otherwise go on silently after its whole 20 s timeout: it says which), and
// reads the count; then it exits, and the ember rank, whose rendezvous goes on to wait for a
// rank 0 that PyTorch's rank is not, fails naming the store: "lost the connection" when the exit
// comes mid-request, "could not connect" when it comes between requests (its own timeout, 8 s).
TEST(TcpStorePyTorch113, EmberRankCountsItselfForAPyTorchRank0) {
  if (!test::have_torch())
    GTEST_SKIP() << "python3-torch is not installed (apt install python3-torch)";
  Python torch(R"(
import datetime, socket, struct, time, torch.distributed as d
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
print(port, flush=True)
start = time.monotonic()
store = d.TCPStore("127.0.0.1", port, 2, True, datetime.timedelta(seconds=20))
waited = time.monotonic() - start
# The count through a raw v1 ADD of 0 (code 3): TCPStore.add would send "/init/".
c = socket.create_connection(("127.0.0.1", port))
c.sendall(b"\x03" + struct.pack("<Q", 5) + b"init/" + struct.pack("<q", 0))
count = struct.unpack("<q", c.recv(8))[0]
print("init/=%d %s" % (count, "joined" if waited < 20 else "timed out"), flush=True)
)",
               {});
  const std::string port = torch.line();
  ASSERT_FALSE(port.empty());
  std::string error;
  std::thread rank1([&] {
    error = message_of([&] {
      init_process_group(
          {.init_method = "tcp://127.0.0.1:" + port, .timeout = 8s, .world_size = 2, .rank = 1});
    });
  });
  EXPECT_EQ(torch.line(), "init/=2 joined");
  EXPECT_EQ(torch.wait(), 0);
  rank1.join();
  const bool lost = error.find("lost the connection to the store (store at 127.0.0.1:" + port) !=
                    std::string::npos;
  const bool refused =
      error.find("could not connect to the store at 127.0.0.1:" + port) != std::string::npos;
  EXPECT_TRUE(lost || refused) << error;
}

}  // namespace
}  // namespace ember::dist
