#!/usr/bin/env python3
"""Bounded loopback load test of `memwall ui` (issue 29): hostile bodies (deep, huge, chunked,
malformed), 200 slow clients, 1,000 plans in a row. After each phase the server must still be up
and answer a normal request within 1 s; while the plans run, a second client asks a normal
request every 0.5 s and each must be answered within 1 s; after them the RSS must be within 100 MB
of the idle figure. Prints timings and the server's RSS; exit 1 on a failure.

  scripts/ui-load-test.py [--memwall build/memwall] [--plans 1000] [--port 18941]
Every loop is bounded in count and time; nothing leaves loopback."""
import argparse, http.client, socket, subprocess, sys, threading, time

ap = argparse.ArgumentParser()
ap.add_argument("--memwall", default="build/memwall")
ap.add_argument("--plans", type=int, default=1000)
ap.add_argument("--slow", type=int, default=200)
ap.add_argument("--port", type=int, default=18941)
a = ap.parse_args()
failures = []


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def post(path, body, headers=None, timeout=30):
    c = http.client.HTTPConnection("127.0.0.1", a.port, timeout=timeout)
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    t = time.monotonic()
    c.request("POST", path, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, data, time.monotonic() - t


def normal(phase):
    try:
        status, _, s = post("/api/infer", b"{}", timeout=1)
        ok = status == 200 and s < 1
    except Exception as e:  # noqa: BLE001 (any failure is a failure of the phase)
        ok, s, status = False, 1.0, repr(e)
    print(f"  {phase}: normal /api/infer {status} in {s * 1000:.1f} ms")
    if not ok:
        failures.append(phase)


server = subprocess.Popen([a.memwall, "ui", "--port", str(a.port)], stdout=subprocess.DEVNULL)
try:
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", a.port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.1)
    idle_start = rss_mb(server.pid)
    print(f"idle RSS {idle_start:.1f} MB")
    for name, body in [("deep 100,000", b"[" * 100000 + b"]" * 100000),
                       ("gpus 140,000 x h100", b'{"gpus":[' + b",".join([b'"h100"'] * 140000) + b"]}"),
                       ("1e400", b'{"batch":1e400}'), ("invalid UTF-8", b'{"gpu":"\xff\xfe"}'),
                       ("not JSON", b"{not json")]:
        try:
            status, data, s = post("/api/plan" if b"gpus" in body else "/api/infer", body)
            print(f"  {name}: {status} in {s:.2f} s, {data[:80]!r}")
            if not 400 <= status < 500 or not data.startswith(b"{"):
                failures.append(name)
        except Exception as e:  # noqa: BLE001
            print(f"  {name}: {e!r}")
            failures.append(name)
    # 10 MiB chunked body: refused at the 1 MiB limit.
    s = socket.create_connection(("127.0.0.1", a.port))
    s.sendall(f"POST /api/infer HTTP/1.1\r\nHost: 127.0.0.1:{a.port}\r\nContent-Type: application/json"
              "\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
    try:
        for _ in range(160):
            s.sendall(b"10000\r\n" + b" " * 0x10000 + b"\r\n")
    except OSError:
        pass
    s.settimeout(5)
    try:
        reply = s.recv(200)
    except OSError:
        reply = b""
    s.close()
    status_line = reply.split(b"\r\n")[0]
    print(f"  chunked 10 MiB: {status_line!r}")
    if b" 413 " not in reply:
        failures.append("chunked")
    normal("after hostile bodies")
    # Slow clients: each sends a byte of a request line every 0.5 s for 12 s.
    slow = [socket.create_connection(("127.0.0.1", a.port)) for _ in range(a.slow)]
    start = time.monotonic()
    normal(f"{a.slow} slow clients connected")
    while time.monotonic() - start < 12:
        for c in slow:
            try:
                c.send(b"G")
            except OSError:
                pass
        time.sleep(0.5)
    closed = 0
    for c in slow:
        try:
            c.send(b"E")
            c.send(b"T")
        except OSError:
            closed += 1
        c.close()
    print(f"  slow clients closed by the server after 12 s: {closed} of {a.slow}")
    if closed < a.slow:
        failures.append("slow clients kept")
    normal("after slow clients")
    idle = idle_start
    done = threading.Event()
    probes = []  # (seconds, status) of the normal requests asked while the plans run

    def probe():
        while not done.is_set():
            try:
                status, _, took = post("/api/infer", b"{}", timeout=5)
            except Exception:  # noqa: BLE001 (a refused or timed-out probe is a failure)
                status, took = 0, 5.0
            probes.append((took, status))
            done.wait(0.5)

    prober = threading.Thread(target=probe)
    prober.start()
    t = time.monotonic()
    peak = idle
    for i in range(a.plans):
        post("/api/plan", b'{"concurrency":20,"gpus":["h100","a100","l40s"]}', timeout=60)
        if i % 50 == 49:
            peak = max(peak, rss_mb(server.pid))
    done.set()
    prober.join()
    after = rss_mb(server.pid)
    worst = max(p[0] for p in probes) if probes else 0.0
    bad = [p for p in probes if p[1] != 200 or p[0] >= 1]
    print(f"  {a.plans} plans in {time.monotonic() - t:.1f} s; RSS {idle:.1f} MB idle, peak "
          f"{peak:.1f} MB, {after:.1f} MB after; {len(probes)} normal requests during them, "
          f"slowest {worst * 1000:.1f} ms, {len(bad)} late or failed")
    if bad:
        failures.append(f"{len(bad)} normal requests late or failed during the plans")
    if after > idle + 100:
        failures.append(f"RSS {after:.1f} MB after the plans, more than 100 MB over idle {idle:.1f} MB")
    normal(f"after {a.plans} plans")
finally:
    server.terminate()
    server.wait(timeout=10)
print("FAILED: " + ", ".join(failures) if failures else "all phases passed")
sys.exit(1 if failures else 0)
