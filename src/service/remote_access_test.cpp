// SPDX-License-Identifier: MIT OR Apache-2.0
// Remote access (remote_access.hpp, client_credentials.hpp) against the real daemon: certificates
// made here with the openssl command (a CA, a server certificate for localhost and 127.0.0.1, a
// client certificate, a client certificate from another CA, client certificates expired, not yet
// valid and for servers only), one daemon that asks for TLS, a client certificate and a token on
// TCP, and one with a plaintext TCP listener. A client without credentials is refused, one with
// them proves; a wrong token, a certificate from an unknown CA and a client of the wrong transport
// are refused with messages that say what to change, and each refused handshake is named by its
// cause in the client's message and in the daemon's log; the CLI
// verbs and `cuzk bench` with the flags (and CUZK_TOKEN_FILE) prove end to end; HTTP on a
// non-loopback address speaks HTTPS and asks for the token; and a request body over HTTP's limit
// is refused before it is read.
#include "service/remote_access.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "base/poll_until.hpp"
#include "service/client.hpp"
#include "service/daemon_test_util.hpp"

namespace cuzk::service {
namespace {

namespace v1 = cuzk::v1;
namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::free_port;
using test::read_file;
using test::run_command;

const std::string data = CUZK_TEST_DATA_DIR;
const std::string zkey = data + "/snarkjs/bn128/poseidon/circuit.zkey";
const std::string wtns = data + "/snarkjs/bn128/poseidon/circuit.wtns";
const std::string bin = CUZK_BIN;

// The test's certificates, made once with the openssl command (P-256 keys: made in milliseconds).
struct pki {
  std::string dir;
  std::string ca, server_cert, server_key, client_cert, client_key, stranger_cert, stranger_key, token,
      wrong_token;

  static std::string make_ca(const std::string& dir, const std::string& name) {
    return "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=" + name +
           " -keyout " + dir + "/" + name + ".key -out " + dir + "/" + name + ".pem";
  }
  // A key and a certificate `ca` signs, with the extensions in `ext`.
  static std::string make_signed(const std::string& dir, const std::string& name, const std::string& ca,
                                 const std::string& ext) {
    const std::string d = dir + "/";
    return "printf '" + ext + "\\n' > " + d + name + ".ext && openssl req -newkey ec -pkeyopt " +
           "ec_paramgen_curve:prime256v1 -nodes -subj /CN=" + name + " -keyout " + d + name + ".key -out " + d +
           name + ".csr && openssl x509 -req -days 2 -in " + d + name + ".csr -CA " + d + ca + ".pem -CAkey " + d +
           ca + ".key -CAcreateserial -extfile " + d + name + ".ext -out " + d + name + ".pem";
  }

  // The same, valid from `start` to `end` (YYYYMMDDHHMMSSZ): `openssl x509` of OpenSSL 3.0 sets
  // no start date, `openssl ca` does.
  static std::string make_dated(const std::string& dir, const std::string& name, const std::string& ca,
                                const std::string& ext, const std::string& start, const std::string& end) {
    const std::string d = dir + "/";
    return "printf '" + ext + "\\n' > " + d + name +
           ".ext && printf '[ca]\\ndefault_ca = d\\n[d]\\ndatabase = " + d +
           "index.txt\\nnew_certs_dir = " + dir + "\\nserial = " + d +
           "serial\\ndefault_md = sha256\\npolicy = p\\n" +
           "unique_subject = no\\n[p]\\ncommonName = supplied\\n' > " + d + "ca.cnf && touch " + d +
           "index.txt && (test -f " + d + "serial || echo 01 > " + d +
           "serial) && openssl req -newkey ec -pkeyopt " +
           "ec_paramgen_curve:prime256v1 -nodes -subj /CN=" + name + " -keyout " + d + name + ".key -out " +
           d + name + ".csr && openssl ca -batch -notext -config " + d + "ca.cnf -cert " + d + ca +
           ".pem -keyfile " + d + ca + ".key -startdate " + start + " -enddate " + end + " -extfile " + d +
           name + ".ext -in " + d + name + ".csr -out " + d + name + ".pem";
  }

  pki() {
    dir = (fs::temp_directory_path() / ("cuzk-remote-access-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const auto& cmd :
         {make_ca(dir, "ca"), make_ca(dir, "other-ca"),
          make_signed(dir, "server", "ca", "subjectAltName=DNS:localhost,IP:127.0.0.1"),
          make_signed(dir, "client", "ca", "extendedKeyUsage=clientAuth"),
          make_signed(dir, "stranger", "other-ca", "extendedKeyUsage=clientAuth"),
          make_signed(dir, "server-only", "ca", "extendedKeyUsage=serverAuth"),
          make_dated(dir, "expired", "ca", "extendedKeyUsage=clientAuth", "20200101000000Z",
                     "20200102000000Z"),
          make_dated(dir, "future", "ca", "extendedKeyUsage=clientAuth", "20400101000000Z",
                     "20400102000000Z"),
          make_dated(dir, "expired-server", "ca", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                     "20200101000000Z", "20200102000000Z"),
          make_signed(dir, "misnamed-server", "ca", "subjectAltName=DNS:elsewhere.example")}) {
      const auto [rc, out] = run_command(cmd);
      EXPECT_EQ(rc, 0) << cmd << "\n" << out;
    }
    ca = dir + "/ca.pem";
    server_cert = dir + "/server.pem";
    server_key = dir + "/server.key";
    client_cert = dir + "/client.pem";
    client_key = dir + "/client.key";
    stranger_cert = dir + "/stranger.pem";
    stranger_key = dir + "/stranger.key";
    token = dir + "/token";
    wrong_token = dir + "/wrong-token";
    std::ofstream(token) << "0123456789abcdef0123456789abcdef\n";
    std::ofstream(wrong_token) << "fedcba9876543210fedcba9876543210\n";
  }
  ~pki() { fs::remove_all(dir); }
};

// `cuzk daemon` with a TCP listener, configured by `tcp_keys` (TLS and auth, or none).
struct tcp_daemon {
  std::string dir, sock, config, addr;
  int http_port = 0;
  pid_t pid = -1;

  tcp_daemon(const std::string& name, const std::string& tcp_keys, const std::string& http_host) {
    dir = (fs::temp_directory_path() / ("cuzk-remote-" + name + "-" + std::to_string(::getpid()))).string();
    fs::remove_all(dir);
    fs::create_directories(dir);
    sock = dir + "/d.sock";
    addr = "127.0.0.1:" + std::to_string(free_port());
    http_port = free_port();
    config = dir + "/cuzk.toml";
    std::ofstream(config) << "data_dir = \"" << dir << "/data\"\nsocket = \"" << sock << "\"\nlisten = \"" << addr
                          << "\"\nhttp = \"" << http_host << ":" << http_port << "\"\nlog_level = \"warn\"\n"
                          << tcp_keys << "[[circuit]]\nid = \"poseidon\"\nzkey = \"" << zkey << "\"\n";
    pid = ::fork();
    if (pid == 0) {
      // Its log, for the tests that read what it said.
      const int log = ::open((dir + "/daemon.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      if (log >= 0) ::dup2(log, STDERR_FILENO);
      ::execl(CUZK_BIN, CUZK_BIN, "daemon", "--config", config.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // The socket answers once the TCP listener is bound too (one BuildAndStart). Waiting for its
    // file first spares gRPC's first reconnect backoff (a second) in every test.
    const auto until = std::chrono::steady_clock::now() + 20s;
    while (!fs::exists(sock) && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(5ms);
    auto ch = connect(sock, "");
    EXPECT_TRUE(ch->WaitForConnected(std::chrono::system_clock::now() + 20s)) << "daemon did not come up";
  }
  ~tcp_daemon() {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    fs::remove_all(dir);
  }
};

class remote_access : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { certs = new pki(); }
  // Each daemon is started by the first test that uses it (ctest runs each test in its own process).
  static tcp_daemon& guarded() {
    if (!guarded_)
      guarded_ = new tcp_daemon("guarded",
                                "tls_cert = \"" + certs->server_cert + "\"\ntls_key = \"" + certs->server_key +
                                    "\"\ntls_client_ca = \"" + certs->ca + "\"\nauth_token_file = \"" +
                                    certs->token + "\"\n",
                                "0.0.0.0");
    return *guarded_;
  }
  static tcp_daemon& plain() {
    if (!plain_) plain_ = new tcp_daemon("plain", "", "127.0.0.1");
    return *plain_;
  }
  static void TearDownTestSuite() {
    delete guarded_;
    delete plain_;
    delete certs;
  }
  static client_credentials full() {
    return {certs->ca, certs->client_cert, certs->client_key, certs->token};
  }
  // GetStatus over TCP with `creds`.
  static grpc::Status get_status(const std::string& addr, const client_credentials& creds) {
    auto ch = connect("", addr, creds);
    EXPECT_TRUE(ch) << ch.error().to_string();
    auto stub = make_stub(*ch);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + 10s);
    v1::GetStatusResponse resp;
    return stub->GetStatus(&ctx, {}, &resp);
  }
  // `cuzk <args>` with `env` set in front; its exit status and output.
  static std::pair<int, std::string> cuzk(const std::string& args, const std::string& env = {}) {
    return run_command(env + (env.empty() ? "" : " ") + bin + " " + args);
  }
  static std::string tls_flags(const std::string& token_file) {
    return " --tls-ca " + certs->ca + " --tls-cert " + certs->client_cert + " --tls-key " + certs->client_key +
           (token_file.empty() ? "" : " --token-file " + token_file);
  }

  static pki* certs;
  static tcp_daemon* guarded_;
  static tcp_daemon* plain_;
};
pki* remote_access::certs = nullptr;
tcp_daemon* remote_access::guarded_ = nullptr;
tcp_daemon* remote_access::plain_ = nullptr;

// docs/HARDENING.md, finding 19: without key_dirs (these daemons have none) a key path is
// registered only by the daemon's own user on its Unix socket (mode 0600). Over TCP, plaintext or
// with TLS and a token, and on a socket opened to other users, it is refused in one message that
// names key_dirs, whether the file exists or not.
TEST_F(remote_access, without_key_dirs_only_the_daemons_user_on_its_socket_registers_a_key_path) {
  const std::string missing = plain().dir + "/missing.zkey";
  const auto refusal = [](std::string out, const std::string& path) {
    const auto at = out.find(path);
    return at == std::string::npos ? out : out.substr(0, at) + "P" + out.substr(at + path.size());
  };
  auto [rc, out] = cuzk("register tcp " + zkey + " --addr " + plain().addr);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("key_dirs is empty"), std::string::npos) << out;
  const auto [missing_rc, missing_out] = cuzk("register tcp " + missing + " --addr " + plain().addr);
  EXPECT_EQ(missing_rc, 1) << missing_out;
  EXPECT_EQ(refusal(missing_out, missing), refusal(out, zkey)) << "a missing file is told from an existing one";
  std::tie(rc, out) = cuzk("register tls " + zkey + " --addr " + guarded().addr + tls_flags(certs->token));
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("key_dirs is empty"), std::string::npos) << out;
  // The socket whose mode was opened to other users proves nobody's user.
  ASSERT_EQ(::chmod(plain().sock.c_str(), 0666), 0);
  std::tie(rc, out) = cuzk("register opened " + zkey + " --socket " + plain().sock);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("key_dirs is empty"), std::string::npos) << out;
  ASSERT_EQ(::chmod(plain().sock.c_str(), 0600), 0);
  std::tie(rc, out) = cuzk("register local " + zkey + " --socket " + plain().sock);
  EXPECT_EQ(rc, 0) << out;
  std::tie(rc, out) = cuzk("circuits --addr " + plain().addr);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("local"), std::string::npos) << out;
  EXPECT_EQ(out.find("tcp"), std::string::npos) << out;
  EXPECT_EQ(out.find("opened"), std::string::npos) << out;
}

TEST_F(remote_access, a_client_with_every_credential_proves_over_tls) {
  auto ch = connect("", guarded().addr, full());
  ASSERT_TRUE(ch) << ch.error().to_string();
  auto stub = make_stub(*ch);
  v1::SubmitProofRequest req;
  req.set_circuit("poseidon");
  req.add_partitions()->set_wtns(read_file(wtns));
  v1::SubmitProofResponse submitted;
  {
    grpc::ClientContext ctx;
    auto s = stub->SubmitProof(&ctx, req, &submitted);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  v1::AwaitProofRequest await;
  await.set_job_id(submitted.job_id());
  await.set_timeout_ms(60000);
  v1::ProofResult r;
  grpc::ClientContext ctx;
  auto s = stub->AwaitProof(&ctx, await, &r);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(r.state(), v1::DONE) << r.error();
  ASSERT_EQ(r.proofs_size(), 1);  // verify_proofs (the default) checked it in the daemon
}

TEST_F(remote_access, a_client_without_credentials_is_refused_and_told_to_use_tls) {
  const auto s = get_status(guarded().addr, {});
  EXPECT_FALSE(s.ok());
  const auto why = explain_call_failure(s, guarded().addr, {});
  EXPECT_NE(why.find("speaks TLS and this client connected in plaintext: pass --tls-ca"), std::string::npos) << why;
  // The CLI says the same, not gRPC's raw string.
  const auto [rc, out] = cuzk("status --addr " + guarded().addr);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("cuzk: error: daemon: the daemon at " + guarded().addr + " speaks TLS"), std::string::npos)
      << out;
}

TEST_F(remote_access, tls_without_a_client_certificate_or_token_is_refused) {
  auto creds = full();
  creds.tls_cert.clear();
  creds.tls_key.clear();
  EXPECT_FALSE(get_status(guarded().addr, creds).ok());
  creds = full();
  creds.token_file.clear();
  const auto s = get_status(guarded().addr, creds);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED) << s.error_message();
  EXPECT_NE(s.error_message().find("asks for a bearer token: pass --token-file"), std::string::npos)
      << s.error_message();
}

TEST_F(remote_access, a_wrong_token_is_refused) {
  auto creds = full();
  creds.token_file = certs->wrong_token;
  const auto s = get_status(guarded().addr, creds);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(s.error_message().find("bearer token was refused"), std::string::npos) << s.error_message();
  const auto [rc, out] = cuzk("status --addr " + guarded().addr + tls_flags(certs->wrong_token));
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("refused the call: the bearer token was refused"), std::string::npos) << out;
}

TEST_F(remote_access, a_client_certificate_from_an_unknown_ca_is_refused) {
  auto creds = full();
  creds.tls_cert = certs->stranger_cert;
  creds.tls_key = certs->stranger_key;
  const auto s = get_status(guarded().addr, creds);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error_code(), grpc::StatusCode::OK);
  const auto why = explain_call_failure(s, guarded().addr, creds);
  EXPECT_NE(why.find("TLS handshake with the daemon at " + guarded().addr + " failed"), std::string::npos) << why;
}

// docs/HARDENING.md, finding 29: a refused handshake names its cause, for the client's
// certificate (from the daemon's alert and the certificate's own dates and purpose) and for the
// daemon's (from the client's verification), where gRPC says "Socket closed" for all of them.
TEST_F(remote_access, a_refused_handshake_names_its_cause) {
  const auto why = [&](const std::string& cert, const std::string& ca) {
    auto creds = full();
    creds.tls_cert = cert.empty() ? "" : certs->dir + "/" + cert + ".pem";
    creds.tls_key = cert.empty() ? "" : certs->dir + "/" + cert + ".key";
    creds.tls_ca = certs->dir + "/" + ca + ".pem";
    const auto s = get_status(guarded().addr, creds);
    EXPECT_FALSE(s.ok()) << cert;
    return explain_call_failure(s, guarded().addr, creds);
  };
  const std::string failed = "the TLS handshake with the daemon at " + guarded().addr + " failed: ";
  const auto refused = [&](const std::string& cert) {
    return failed + "the daemon refused this client's certificate (--tls-cert " + certs->dir + "/" + cert +
           ".pem): ";
  };
  EXPECT_EQ(why("expired", "ca"), refused("expired") + "it expired on 2020-01-02 00:00:00 UTC");
  EXPECT_EQ(why("future", "ca"),
            refused("future") +
                "it is not valid until 2040-01-01 00:00:00 UTC (or this machine's clock is ahead "
                "of the daemon's)");
  EXPECT_EQ(why("stranger", "ca"),
            refused("stranger") +
                "is it signed by the daemon's tls_client_ca? (its issuer: /CN=other-ca; the "
                "daemon's log says why it refused it)");
  EXPECT_EQ(
      why("server-only", "ca"),
      refused("server-only") + "it is not for client authentication (its extendedKeyUsage lacks clientAuth)");
  EXPECT_EQ(why("", "ca"),
            failed +
                "the daemon asks for a client certificate (its tls_client_ca is set): pass --tls-cert "
                "and --tls-key of a certificate that CA signed");
  EXPECT_EQ(why("client", "other-ca"),
            failed +
                "the daemon's certificate (its tls_cert) is not trusted: it was not "
                "signed by the CA of --tls-ca (" +
                certs->dir + "/other-ca.pem) (its issuer: /CN=ca)");
  // The daemon's log names the cause and the certificate (client_certificate_check.hpp), and the
  // causes gRPC's handshake reports (grpc_log.hpp), not gRPC's raw lines. The daemon logs a refusal
  // on its own thread, which may come after the client has heard of it: the log is read again
  // until it holds the last one (or 10 s have passed).
  const char* const last = "tls: a client's handshake was refused: it does not trust the daemon's tls_cert";
  std::string log;
  poll_until([&] {
    log = read_file(guarded().dir + "/daemon.log");
    return log.find(std::string("warning ") + last) != std::string::npos;
  });
  for (const std::string line : {
           "tls: a client's handshake was refused: the client certificate /CN=expired (issuer /CN=ca): it "
           "expired "
           "on 2020-01-02 00:00:00 UTC",
           "tls: a client's handshake was refused: the client certificate /CN=future (issuer /CN=ca): it is "
           "not "
           "valid until 2040-01-01 00:00:00 UTC",
           "tls: a client's handshake was refused: the client certificate /CN=stranger (issuer "
           "/CN=other-ca): it "
           "was not signed by tls_client_ca",
           "tls: a client's handshake was refused: the client certificate /CN=server-only (issuer /CN=ca): "
           "it is "
           "not for client authentication (its extendedKeyUsage lacks clientAuth)",
           "tls: a client's handshake was refused: it sent no client certificate, and tls_client_ca asks for "
           "one",
           last,
       })
    EXPECT_NE(log.find("warning " + line), std::string::npos) << line << "\nnot in:\n" << log;
  EXPECT_EQ(log.find("Handshake failed with fatal error"), std::string::npos) << log;
  // The CLI prints the same.
  const auto [rc, out] =
      cuzk("status --addr " + guarded().addr + " --tls-ca " + certs->ca + " --tls-cert " + certs->dir +
           "/expired.pem --tls-key " + certs->dir + "/expired.key --token-file " + certs->token);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("cuzk: error: daemon: " + refused("expired") + "it expired on 2020-01-02"),
            std::string::npos)
      << out;
}

// The same for the daemon's certificate, which the client checks: expired, and not naming the
// host of --addr (docs/HARDENING.md, finding 29).
TEST_F(remote_access, a_daemon_certificate_the_client_refuses_is_named_by_its_cause) {
  for (const std::string name : {"expired-server", "misnamed-server"}) {
    tcp_daemon d(name,
                 "tls_cert = \"" + certs->dir + "/" + name + ".pem\"\ntls_key = \"" + certs->dir + "/" +
                     name + ".key\"\n",
                 "127.0.0.1");
    client_credentials creds;
    creds.tls_ca = certs->ca;
    const auto s = get_status(d.addr, creds);
    EXPECT_FALSE(s.ok()) << name;
    const std::string failed = "the TLS handshake with the daemon at " + d.addr + " failed: ";
    EXPECT_EQ(
        explain_call_failure(s, d.addr, creds),
        name == "expired-server"
            ? failed +
                  "the daemon's certificate (its tls_cert) expired on 2020-01-02 00:00:00 UTC: the daemon "
                  "needs a new tls_cert"
            : failed +
                  "the daemon's certificate (its tls_cert) does not name 127.0.0.1, the host of --addr: "
                  "connect by a name or address its subjectAltName lists, or give the daemon a tls_cert "
                  "that lists 127.0.0.1");
  }
}

TEST_F(remote_access, a_tls_client_at_a_plaintext_port_is_told_so) {
  const auto [rc, out] = cuzk("circuits --addr " + plain().addr + " --tls-ca " + certs->ca);
  EXPECT_EQ(rc, 1);
  EXPECT_NE(out.find("does not speak TLS on that port"), std::string::npos) << out;
  // The plaintext listener still serves a plaintext client, and the socket any client.
  EXPECT_TRUE(get_status(plain().addr, {}).ok());
  const auto [status_rc, status] = cuzk("status --socket " + guarded().sock);
  EXPECT_EQ(status_rc, 0) << status;
  // The status names the token's file, never the token.
  EXPECT_NE(status.find(certs->token), std::string::npos) << status;
  EXPECT_EQ(status.find("0123456789abcdef"), std::string::npos) << status;
}

TEST_F(remote_access, the_cli_verbs_and_bench_prove_with_the_flags) {
  const std::string at = " --addr " + guarded().addr + tls_flags(certs->token);
  auto [rc, out] = cuzk("circuits" + at);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("poseidon"), std::string::npos) << out;
  std::tie(rc, out) = cuzk("prove-remote -c poseidon " + wtns + at);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("\"publicSignals\""), std::string::npos) << out;
  // The token from CUZK_TOKEN_FILE, as a script sets it once.
  std::tie(rc, out) = cuzk("submit -c poseidon " + wtns + " --addr " + guarded().addr + tls_flags(""),
                           "CUZK_TOKEN_FILE=" + certs->token);
  ASSERT_EQ(rc, 0) << out;
  const std::string job = out.substr(0, out.find('\n'));
  std::tie(rc, out) = cuzk("await " + job + at + " -o " + guarded().dir + "/out");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_TRUE(fs::exists(guarded().dir + "/out/proof.json"));
  std::tie(rc, out) = cuzk("bench single -n 1 -c poseidon " + wtns + at);
  EXPECT_EQ(rc, 0) << out;
  // A flag naming a file that is not there is a usage error naming the flag.
  std::tie(rc, out) = cuzk("status --addr " + guarded().addr + " --tls-ca " + certs->dir + "/none.pem");
  EXPECT_EQ(rc, 2);
  EXPECT_NE(out.find("--tls-ca: "), std::string::npos) << out;
}

TEST_F(remote_access, http_on_a_network_address_is_https_and_asks_for_the_token) {
  httplib::SSLClient https("127.0.0.1", guarded().http_port, certs->client_cert, certs->client_key);
  https.set_ca_cert_path(certs->ca.c_str());
  https.enable_server_certificate_verification(true);
  auto health = https.Get("/healthz");
  ASSERT_TRUE(health) << httplib::to_string(health.error());
  EXPECT_EQ(health->status, 200);
  auto refused = https.Get("/status");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  const std::string token = "0123456789abcdef0123456789abcdef";
  auto served = https.Get("/metrics", {{"Authorization", "Bearer " + token}});
  ASSERT_TRUE(served);
  EXPECT_EQ(served->status, 200);
  EXPECT_NE(served->body.find("cuzk_"), std::string::npos);
  // Plain HTTP at that port gets no answer from it.
  httplib::Client http("127.0.0.1", guarded().http_port);
  http.set_connection_timeout(2);
  http.set_read_timeout(2);
  auto plain_answer = http.Get("/healthz");
  EXPECT_TRUE(!plain_answer || plain_answer->status != 200);
}

TEST_F(remote_access, an_http_body_over_the_limit_is_refused_before_it_is_read) {
  httplib::Client http("127.0.0.1", plain().http_port);
  // 64 KiB + 1: answered 413; the server discards such a body as it arrives and never holds it.
  http.set_read_timeout(5);
  auto big = http.Post("/status", std::string(http_max_body_bytes + 1, 'x'), "text/plain");
  ASSERT_TRUE(big) << httplib::to_string(big.error());
  EXPECT_EQ(big->status, 413);
  // 100 GB declared and none of it sent: 413 once the read times out (1 s), nothing allocated for it.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(plain().http_port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  const std::string head = "POST /status HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000000\r\n\r\n";
  ASSERT_EQ(::write(fd, head.data(), head.size()), static_cast<ssize_t>(head.size()));
  char reply[64] = {};
  const ssize_t n = ::read(fd, reply, sizeof reply - 1);
  ::close(fd);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(reply).rfind("HTTP/1.1 413", 0), 0u) << reply;
  // Under it, a body on a GET-only server is still just not found/allowed, never a crash.
  auto small = http.Post("/status", std::string(16, 'x'), "text/plain");
  ASSERT_TRUE(small);
  EXPECT_NE(small->status, 200);
  auto ok = http.Get("/healthz");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
}

// The config checks, without a daemon: each refusal names its key.
TEST(remote_access_config, a_token_or_client_ca_without_tls_is_refused_naming_the_key) {
  daemon_config c;
  c.auth_token_file = "/nowhere/token";
  auto r = tcp_server_credentials(c);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("auth_token_file: expected tls_cert to be set too"), std::string::npos)
      << r.error().message();
  c = {};
  c.tls_client_ca = "/nowhere/ca.pem";
  r = tcp_server_credentials(c);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("tls_client_ca: expected tls_cert"), std::string::npos);
  c = {};
  c.tls_cert = "/nowhere/cert.pem";
  r = tcp_server_credentials(c);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("tls_cert: expected tls_key"), std::string::npos);
  c.tls_key = "/nowhere/key.pem";
  r = tcp_server_credentials(c);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("tls_cert: "), std::string::npos) << r.error().message();
  EXPECT_TRUE(tcp_server_credentials(daemon_config{}));
}

TEST(remote_access_config, tokens_compare_whole_and_short_ones_are_refused) {
  EXPECT_TRUE(token_matches("0123456789abcdef", "0123456789abcdef"));
  EXPECT_FALSE(token_matches("0123456789abcdeF", "0123456789abcdef"));
  EXPECT_FALSE(token_matches("0123456789abcdef0", "0123456789abcdef"));
  EXPECT_FALSE(token_matches("", "0123456789abcdef"));
  const std::string p = (fs::temp_directory_path() / ("cuzk-short-token-" + std::to_string(::getpid()))).string();
  std::ofstream(p) << "short\n";
  auto t = read_auth_token(p);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message().find("at least 16 characters"), std::string::npos) << t.error().message();
  fs::remove(p);
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("localhost"));
  EXPECT_TRUE(is_loopback_host("[::1]"));
  EXPECT_FALSE(is_loopback_host("0.0.0.0"));
  EXPECT_FALSE(is_loopback_host("10.0.0.5"));
}

}  // namespace
}  // namespace cuzk::service
