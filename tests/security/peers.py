#!/usr/bin/python3
"""Hostile peers of morphd for tests/security/cases.sh and bench/security.sh.

  peers.py flood ADDR SILENT HALF SECONDS
      opens SILENT connections that say nothing and HALF that send half a
      line, to ADDR (a Unix socket path or host:port), within SECONDS,
      keeps them until then and closes them; prints how many it opened of
      how many it tried (one the server closed still counts: a silent
      socket does not notice)
  peers.py proxy PORT TARGET LINE
      listens on 127.0.0.1:PORT, forwards one client to 127.0.0.1:TARGET
      both ways, and once the server's answer to the handshake has passed,
      writes LINE into the stream towards the server (an on-path relay
      that injects a command); stops when either side closes or after 30 s
  peers.py silent ADDR
      connects and says nothing; prints how many seconds passed before the
      server closed the connection (at most 30)
  peers.py hello SOCK JOB [SECRET]
      connects to the Unix socket SOCK, says HELLO for job JOB (with
      SECRET), prints morphd's answer line and whether it closed after
"""
import json
import resource
import select
import socket
import sys
import time


def connect(addr, timeout=5):
    if "/" in addr:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(addr)
    else:
        host, port = addr.rsplit(":", 1)
        s = socket.create_connection((host, int(port)), timeout=timeout)
    return s


def flood(addr, silent, half, seconds):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    socks = []
    tried = 0
    deadline = time.monotonic() + float(seconds)
    for i in range(int(silent) + int(half)):
        tried += 1
        if time.monotonic() > deadline:
            break
        try:
            s = connect(addr, 1)
            s.setblocking(False)
            if i >= int(silent):
                s.send(b'{"v":1,"type":"auth","cred":"MUNGE:')
            socks.append(s)
        except OSError:
            time.sleep(0.001)  # refused or backlog full: the server is shedding
    print(len(socks), "of", tried, flush=True)
    time.sleep(max(0.0, deadline - time.monotonic()))
    for s in socks:
        s.close()


def proxy(port, target, line):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", int(port)))
    ls.listen(1)
    ls.settimeout(20)
    c, _ = ls.accept()
    s = socket.create_connection(("127.0.0.1", int(target)))
    injected = False
    until = time.monotonic() + 30
    while time.monotonic() < until:
        r, _, _ = select.select([c, s], [], [], 0.5)
        for src, dst in ((c, s), (s, c)):
            if src not in r:
                continue
            data = src.recv(65536)
            if not data:
                return
            dst.sendall(data)
            if src is s and not injected and b"\n" in data:
                s.sendall(line.encode() + b"\n")  # right after the handshake
                injected = True
                print("injected", flush=True)


def silent(addr):
    s = connect(addr)
    s.settimeout(30)
    t0 = time.monotonic()
    try:
        s.recv(1)
    except OSError:
        pass
    print("%.1f" % (time.monotonic() - t0))


def hello(sock, job, secret=""):
    s = connect(sock)
    msg = {"v": 1, "type": "hello", "job": job, "secret": secret, "size": 1,
           "mechanisms": 2, "pid": 1}
    s.sendall((json.dumps(msg) + "\n").encode())
    s.settimeout(5)
    answer = s.recv(4096).decode().strip()
    try:
        closed = s.recv(1) == b""
    except socket.timeout:
        closed = False
    print(answer)
    print("closed" if closed else "open")


if __name__ == "__main__":
    {"flood": flood, "proxy": proxy, "silent": silent, "hello": hello}[sys.argv[1]](*sys.argv[2:])
