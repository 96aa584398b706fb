# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The HTTP clients curl cannot be, for hwsightd's tests (umockdev/http and
# the lab's soak): raw bytes, resets, slowloris connections, a 1 MB header,
# and a daemon killed at a chosen point of its writes.
#
#   raw PORT [TIMEOUT]        stdin as the request; prints the status line
#   knock PORT                connects and closes
#   reset PORT                half a request, then a RST instead of a FIN
#   big PORT                  a request with a 1 MB header; prints the answer
#   slow PORT N RELEASE SECONDS ADDR...
#                             N connections spread over the source addresses,
#                             each sending its headers a byte a second until
#                             the file RELEASE appears ("-": none) or SECONDS
#                             pass. Prints "opened N failed F", then
#                             "held H dropped D" (those the server closed).
#   kill LOG DIR PREFIX create|open K DELAY_US CMD...
#                             runs CMD, its stderr appended to LOG; at the
#                             K-th file created (or opened) in DIR whose name
#                             starts with PREFIX, lets it run DELAY_US more
#                             and SIGKILLs it (at 60 s in any case). Prints
#                             "EVENTS_SEEN EXIT_STATUS ready|not-ready".
import ctypes, os, select, socket, struct, subprocess, sys, threading, time


def connect(port, src="127.0.0.1", timeout=5):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((src, 0))
    s.settimeout(timeout)
    s.connect(("127.0.0.1", port))
    return s


def answer(s):
    """The status line the server sent, or how the connection ended."""
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except ConnectionResetError:
        pass
    except socket.timeout:
        if not data:
            return "no answer"
    if not data:
        return "closed"
    return data.split(b"\r\n")[0].decode("latin-1")


def send(s, data):
    try:
        s.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass


def slow(port, n, release, secs, addrs):
    socks, failed = [], 0
    for i in range(n):
        try:
            s = connect(port, addrs[i % len(addrs)])
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            socks.append(s)
        except OSError:
            failed += 1
    print("opened %d failed %d" % (len(socks), failed), flush=True)

    def sweep(feed):
        """Drop the connections the server closed; feed the others a byte."""
        n = 0
        for s in list(socks):
            try:
                r, _, _ = select.select([s], [], [], 0)
                if r and not s.recv(1):
                    raise ConnectionResetError
                if feed:
                    s.send(b"a")
            except OSError:
                socks.remove(s)
                s.close()
                n += 1
        return n

    dropped, start = 0, time.monotonic()
    tick = start + 1
    while not (release != "-" and os.path.exists(release)) and time.monotonic() < start + secs:
        time.sleep(0.1)
        if time.monotonic() >= tick:
            tick += 1
            dropped += sweep(True)
    # A loaded machine may have let no tick come before the release.
    dropped += sweep(False)
    print("held %d dropped %d" % (len(socks), dropped), flush=True)
    for s in socks:
        s.close()


def kill(logf, wdir, prefix, event, k, delay, cmd):
    mask = {"create": 0x100, "open": 0x20}[event]    # IN_CREATE, IN_OPEN
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    ifd = libc.inotify_init1(os.O_CLOEXEC)
    if ifd < 0 or libc.inotify_add_watch(ifd, wdir.encode(), mask) < 0:
        print("no-inotify 0 not-ready")
        sys.exit(1)
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    ready = threading.Event()

    def drain():
        with open(logf, "ab") as f:
            for line in p.stderr:
                f.write(line)
                if b">ready:" in line:
                    ready.set()
    reader = threading.Thread(target=drain)
    reader.start()
    seen, deadline = 0, time.monotonic() + 60
    while seen < k and time.monotonic() < deadline:
        if not select.select([ifd], [], [], 1)[0]:
            continue
        buf, off = os.read(ifd, 65536), 0
        while off < len(buf) and seen < k:
            _, m, _, n = struct.unpack_from("iIII", buf, off)
            name = buf[off + 16:off + 16 + n].rstrip(b"\0")
            off += 16 + n
            if m & mask and name.startswith(prefix.encode()):
                seen += 1
    # On one vCPU, sleeping hands it back to the daemon for about DELAY_US.
    if seen == k and delay:
        time.sleep(delay / 1e6)
    p.kill()
    rc = p.wait()
    reader.join()
    print("%d %d %s" % (seen, rc, "ready" if ready.is_set() else "not-ready"))


mode, args = sys.argv[1], sys.argv[2:]
if mode == "raw":
    s = connect(int(args[0]), timeout=float(args[1]) if len(args) > 1 else 5)
    send(s, sys.stdin.buffer.read())
    print(answer(s))
elif mode == "knock":
    connect(int(args[0])).close()
elif mode == "reset":
    s = connect(int(args[0]))
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0")
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
elif mode == "big":
    s = connect(int(args[0]), timeout=10)
    send(s, b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 1048576 + b"\r\n\r\n")
    print(answer(s))
elif mode == "slow":
    slow(int(args[0]), int(args[1]), args[2], float(args[3]), args[4:])
elif mode == "kill":
    kill(args[0], args[1], args[2], args[3], int(args[4]), int(args[5]), args[6:])
else:
    sys.exit("usage: http-client.py raw|knock|reset|big|slow|kill PORT ...")
