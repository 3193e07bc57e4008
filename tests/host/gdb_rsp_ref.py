"""A reference for lib/gdb_rsp driving tools/gdb_rsp_fake, written from the
GDB manual's appendix E (Remote Serial Protocol) and the behaviour
lib/gdb_rsp.h and tools/gdb_rsp_fake.c document, apart from the C code.

Given the bytes GDB sends, Ref.feed() says what comes back: acknowledgements
('+', '-') and reply packets (their decoded bodies), in order."""

PACKET_MAX = 4096
MAX_THREADS = 256
MEM_CHUNK = PACKET_MAX // 2
RW = range(0x1000, 0x11000)
RO = range(0x20000, 0x21000)
# amd64 registers: 16 general, rip, eflags, 6 selectors, st0-7, 8 x87
# control registers, fs_base, gs_base (lib/gdb_rsp_amd64.h).
SIZES = [8] * 17 + [4] * 7 + [10] * 8 + [4] * 8 + [8, 8]
ST = range(24, 32)
RIP = 16
NREGS = len(SIZES)
HEX = "0123456789abcdefABCDEF"

SW, HW, WATCH_W, WATCH_R, WATCH_A = range(5)


def checksum(body: bytes) -> int:
    return sum(body) & 0xff


def frame(body: bytes) -> bytes:
    return b"$" + body + b"#%02x" % checksum(body)


class Bad(Exception):
    """A malformed packet: the reply is this error."""

    def __init__(self, reply):
        super().__init__(reply)
        self.reply = reply


class Cursor:
    def __init__(self, text):
        self.s, self.i = text, 0

    def end(self):
        return self.i >= len(self.s)

    def hexnum(self, err="E01"):
        j = self.i
        while j < len(self.s) and self.s[j] in HEX:
            j += 1
        if j == self.i or j - self.i > 16:
            raise Bad(err)
        v = int(self.s[self.i:j], 16)
        self.i = j
        return v

    def char(self, c, err="E01"):
        if self.end() or self.s[self.i] != c:
            raise Bad(err)
        self.i += 1

    def must_end(self, err="E01"):
        if not self.end():
            raise Bad(err)

    def thread(self):
        """(id, all): "-1" is all, returned as 0."""
        if self.s[self.i:self.i + 2] == "-1":
            self.i += 2
            return 0, True
        v = self.hexnum()
        if v > MAX_THREADS:
            raise Bad("E01")
        return v, False

    def hexbytes(self, n):
        if len(self.s) - self.i < 2 * n:
            raise Bad("E01")
        chunk = self.s[self.i:self.i + 2 * n]
        if any(c not in HEX for c in chunk):
            raise Bad("E01")
        self.i += 2 * n
        return bytes.fromhex(chunk)


class Ref:
    def __init__(self, threads=4, dead=0):
        self.n, self.dead = threads, dead
        self.regs = {(t, r): self._initial(t, r)
                     for t in range(1, threads + 1) for r in range(NREGS)}
        self.mem = {}
        self.points = []
        self.last = (1, 5, "", 0)      # thread, signal, reason, address
        self.g = self.c = 0
        self.sent = None               # last reply, for '-'
        self.running = False
        self.out = []                  # ('+'|'-'|'packet', body)
        self.state, self.body, self.sum_hi = "idle", b"", 0
        # What the fake counts (its last line on stderr).
        self.count = dict.fromkeys(
            ["packets", "bad_checksums", "overlong", "resent", "resumes",
             "steps", "detaches", "break_ins"], 0)

    def counts(self):
        return dict(self.count, points=len(self.points))

    @staticmethod
    def _initial(t, r):
        v = ((t << 56 | r << 48 | 0x1234) % 2**64).to_bytes(8, "little")
        return (v + bytes(8))[:SIZES[r]]

    # ------------------------------------------------------------ target
    def alive(self, t):
        return 1 <= t <= self.n and t <= MAX_THREADS and t != self.dead

    def byte(self, a):
        if a in RW or a in RO:
            return self.mem.get(a, 0)
        return None

    def read_mem(self, a, n):
        out = bytearray()
        for i in range(n):
            b = self.byte(a + i)
            if b is None:
                break
            out.append(b)
        return bytes(out)

    def write_mem(self, a, data):
        if any(a + i not in RW for i in range(len(data))):
            return False
        for i, b in enumerate(data):
            self.mem[a + i] = b
        return True

    def insert(self, typ, addr, kind):
        hw = sum(1 for p in self.points if p[0] != SW)
        if typ == SW and self.byte(addr) is None:
            return False
        if typ != SW and hw == 4:
            return False
        if (typ, addr, kind) in self.points:
            return True
        if len(self.points) == 64:
            return False
        self.points.append((typ, addr, kind))
        return True

    def remove(self, typ, addr, kind):
        if (typ, addr, kind) not in self.points:
            return False
        self.points.remove((typ, addr, kind))
        return True

    # ------------------------------------------------------------ output
    def reply(self, body, binary=False):
        self.sent = (body, binary)
        self.out.append(("packet", body, binary))

    def stop_reply(self):
        t, sig, why, addr = self.last
        body = "T%02x" % sig
        if why in ("swbreak", "hwbreak"):
            body += why + ":;"
        elif why:
            body += "%s:%x;" % (why, addr)
        self.reply(body + "thread:%x;" % t)

    def stopped(self, t, sig, why="", addr=0):
        self.last = (t, sig, why, addr)
        self.g = self.c = t
        self.stop_reply()

    # ------------------------------------------------------------ input
    def feed(self, data: bytes):
        for c in data:
            self.byte_in(c)
        return self.out

    def byte_in(self, c):
        if self.running:
            if c == 3:
                self.count["break_ins"] += 1
                self.running = False
                self.stopped(1, 2)
            return
        ch = chr(c)
        if self.state == "idle":
            if ch == "$":
                self.state, self.body = "body", b""
            elif ch == "-" and self.sent is not None:
                self.count["resent"] += 1
                self.reply(*self.sent)
        elif self.state == "body":
            if ch == "#":
                self.state = "hi"
            elif ch == "$":
                self.body = b""
            else:
                self.body += bytes([c])
        elif self.state == "hi":
            if ch in HEX:
                self.sum_hi, self.state = int(ch, 16), "lo"
            else:
                self.state = "idle"
                self.nak()
        else:
            self.state = "idle"
            if ch in HEX and (self.sum_hi << 4 | int(ch, 16)) == \
                    checksum(self.body):
                self.out.append(("+",))
                if len(self.body) > PACKET_MAX:
                    self.count["overlong"] += 1
                    self.reply("E16")
                else:
                    self.packet(self.body.decode("latin-1"))
            else:
                self.nak()

    def nak(self):
        self.count["bad_checksums"] += 1
        self.out.append(("-",))

    def packet(self, p):
        self.count["packets"] += 1
        try:
            self.dispatch(p)
        except Bad as e:
            self.reply(e.reply)

    # ------------------------------------------------------------ packets
    def chosen(self, h):
        return h or self.last[0]

    def reg_hex(self, t, r):
        if r in ST:
            return "xx" * SIZES[r]
        return self.regs[(t, r)].hex()

    def dispatch(self, p):
        if not p:
            return self.reply("")
        cmd, cur = p[0], Cursor(p[1:])
        handler = {
            "?": lambda: self.stop_reply(), "g": self.cmd_g,
            "G": lambda: self.cmd_G(cur), "p": lambda: self.cmd_p(cur),
            "P": lambda: self.cmd_P(cur), "m": lambda: self.cmd_m(cur),
            "M": lambda: self.cmd_M(cur), "X": lambda: self.cmd_X(cur),
            "Z": lambda: self.cmd_Z(cur, True),
            "z": lambda: self.cmd_Z(cur, False),
            "H": lambda: self.cmd_H(cur), "T": lambda: self.cmd_T(cur),
            "c": lambda: self.cmd_resume(cur, False, False),
            "s": lambda: self.cmd_resume(cur, True, False),
            "C": lambda: self.cmd_resume(cur, False, True),
            "S": lambda: self.cmd_resume(cur, True, True),
            "D": self.cmd_D, "k": self.cmd_k,
            "q": lambda: self.cmd_q(p), "v": lambda: self.cmd_v(p),
        }.get(cmd)
        if handler is None:
            return self.reply("")
        return handler()

    def cmd_g(self):
        t = self.chosen(self.g)
        if not self.alive(t):
            raise Bad("E16")
        self.reply("".join(self.reg_hex(t, r) for r in range(NREGS)))

    def cmd_G(self, cur):
        t = self.chosen(self.g)
        if not self.alive(t):
            raise Bad("E16")
        ok = True
        for r in range(NREGS):
            if cur.end():
                break
            if cur.s[cur.i] == "x":
                if len(cur.s) - cur.i < 2 * SIZES[r]:
                    raise Bad("E01")
                cur.i += 2 * SIZES[r]
                continue
            v = cur.hexbytes(SIZES[r])
            if r in ST:
                ok = False
            else:
                self.regs[(t, r)] = v
        cur.must_end()
        self.reply("OK" if ok else "E16")

    def cmd_p(self, cur):
        r = cur.hexnum()
        cur.must_end()
        t = self.chosen(self.g)
        if r >= NREGS or not self.alive(t):
            raise Bad("E16")
        self.reply(self.reg_hex(t, r))

    def cmd_P(self, cur):
        r = cur.hexnum()
        cur.char("=")
        t = self.chosen(self.g)
        if r >= NREGS or not self.alive(t):
            raise Bad("E16")
        v = cur.hexbytes(SIZES[r])
        cur.must_end()
        if r in ST:
            raise Bad("E16")
        self.regs[(t, r)] = v
        self.reply("OK")

    def cmd_m(self, cur):
        addr = cur.hexnum()
        cur.char(",")
        n = cur.hexnum()
        cur.must_end()
        n = min(n, MEM_CHUNK)
        data = self.read_mem(addr, n)
        if n and not data:
            raise Bad("E0e")
        self.reply(data.hex())

    def range_then(self, cur):
        addr = cur.hexnum()
        cur.char(",")
        n = cur.hexnum()
        cur.char(":")
        if n > MEM_CHUNK:
            raise Bad("E01")
        return addr, n

    def write(self, addr, data):
        if data and not self.write_mem(addr, data):
            raise Bad("E0e")
        self.reply("OK")

    def cmd_M(self, cur):
        addr, n = self.range_then(cur)
        data = cur.hexbytes(n)
        cur.must_end()
        self.write(addr, data)

    def cmd_X(self, cur):
        addr, n = self.range_then(cur)
        data, s, i = bytearray(), cur.s, cur.i
        while i < len(s) and len(data) < n:
            c = s[i]
            i += 1
            if c == "}":
                if i == len(s):
                    break
                c = chr(ord(s[i]) ^ 0x20)
                i += 1
            data.append(ord(c))
        if len(data) != n or i != len(s):
            raise Bad("E01")
        self.write(addr, bytes(data))

    def cmd_Z(self, cur, insert):
        typ = cur.hexnum()
        cur.char(",")
        addr = cur.hexnum()
        cur.char(",")
        kind = cur.hexnum()
        cur.must_end()
        if typ > WATCH_A:
            return self.reply("")
        ok = (self.insert if insert else self.remove)(typ, addr, kind)
        self.reply("OK" if ok else "E16")

    def cmd_H(self, cur):
        if cur.end() or cur.s[cur.i] not in "gc":
            raise Bad("E01")
        which = cur.s[cur.i]
        cur.i += 1
        t, _ = cur.thread()
        cur.must_end()
        if t and not self.alive(t):
            raise Bad("E16")
        if which == "g":
            self.g = t
        else:
            self.c = t
        self.reply("OK")

    def cmd_T(self, cur):
        try:
            t, _ = cur.thread()
            cur.must_end()
        except Bad:
            raise Bad("E16")
        self.reply("OK" if self.alive(t) else "E16")

    def cmd_resume(self, cur, step, with_signal):
        t = self.chosen(self.c)
        if with_signal:
            cur.hexnum()
            if not cur.end():
                cur.char(";")
        at = None
        if not cur.end():
            at = cur.hexnum()
            cur.must_end()
        if not self.alive(t):
            raise Bad("E16")
        if at is not None:
            self.regs[(t, RIP)] = at.to_bytes(8, "little")
        run = {i: "stay" for i in range(1, self.n + 1) if self.alive(i)}
        if step:
            run[t] = "step"
        else:
            run = {i: "cont" for i in run}
        self.resume(run)

    def cmd_D(self):
        self.reply("OK")
        self.cmd_k()

    def cmd_k(self):
        self.count["detaches"] += 1
        self.points = []
        self.running = True

    def cmd_q(self, p):
        if p.startswith("qSupported"):
            return self.reply("PacketSize=%x;qXfer:features:read+;swbreak+;"
                              "hwbreak+" % PACKET_MAX)
        if p.startswith("qXfer:features:read:"):
            return self.cmd_xfer(p[len("qXfer:features:read:"):])
        if p == "qfThreadInfo":
            ids = [i for i in range(1, self.n + 1) if self.alive(i)]
            return self.reply("m" + ",".join("%x" % i for i in ids)
                              if ids else "l")
        if p == "qsThreadInfo":
            return self.reply("l")
        if p.startswith("qThreadExtraInfo,"):
            cur = Cursor(p[len("qThreadExtraInfo,"):])
            try:
                t, _ = cur.thread()
                cur.must_end()
            except Bad:
                raise Bad("E16")
            if not self.alive(t):
                raise Bad("E16")
            return self.reply(("fake cpu %d" % (t - 1)).encode().hex())
        if p == "qC":
            return self.reply("QC%x" % self.last[0])
        if p.startswith("qAttached"):
            return self.reply("1")
        return self.reply("")

    def cmd_xfer(self, rest):
        """The document itself is checked apart (test_gdb_rsp.py); here the
        reply stands for 'a chunk', matched by its kind."""
        if not rest.startswith("target.xml:"):
            raise Bad("E00")
        cur = Cursor(rest[len("target.xml:"):])
        off = cur.hexnum()
        cur.char(",")
        n = cur.hexnum()
        cur.must_end()
        self.reply(("xfer", off, min(n, PACKET_MAX - 1)), binary=True)

    def cmd_v(self, p):
        if p == "vCont?":
            return self.reply("vCont;c;C;s;S")
        if not p.startswith("vCont;"):
            return self.reply("")
        cur = Cursor(p[len("vCont"):])
        run = {i: "stay" for i in range(1, self.n + 1) if self.alive(i)}
        assigned = set()
        while not cur.end():
            cur.char(";")
            if cur.end():
                raise Bad("E01")
            a = cur.s[cur.i]
            cur.i += 1
            if a not in "cCsS":
                raise Bad("E01")
            if a in "CS":
                cur.hexnum()
            t, every = 0, True
            if not cur.end() and cur.s[cur.i] == ":":
                cur.i += 1
                t, every = cur.thread()
                every = every or t == 0
            for i in run:
                if i in assigned or (not every and i != t):
                    continue
                assigned.add(i)
                run[i] = "step" if a in "sS" else "cont"
        if not assigned:
            raise Bad("E16")
        self.resume(run)

    def resume(self, run):
        self.count["resumes"] += 1
        for t in sorted(run):
            if run[t] == "step":
                self.count["steps"] += 1
                rip = int.from_bytes(self.regs[(t, RIP)], "little")
                self.regs[(t, RIP)] = ((rip + 1) % 2**64).to_bytes(8,
                                                                   "little")
                return self.stopped(t, 5)
        going = sorted(t for t in run if run[t] == "cont")
        watches = sorted(p for p in self.points if p[0] != HW)
        if not going or not watches:
            self.running = True
            return
        typ, addr, _ = watches[0]
        t = going[0]
        if typ == SW:
            self.regs[(t, RIP)] = addr.to_bytes(8, "little")
            return self.stopped(t, 5, "swbreak")
        if typ == WATCH_W and addr in RW:
            self.mem[addr] = (self.mem.get(addr, 0) + 1) & 0xff
        why = {WATCH_W: "watch", WATCH_R: "rwatch", WATCH_A: "awatch"}[typ]
        self.stopped(t, 5, why, addr)


def decode(raw: bytes):
    """Splits what the stub sent into ('+',), ('-',) and ('packet', body,
    binary-or-not undecided) tokens: a packet's body as sent, its checksum
    checked."""
    out, i = [], 0
    while i < len(raw):
        c = raw[i:i + 1]
        if c in (b"+", b"-"):
            out.append((c.decode(),))
            i += 1
            continue
        assert c == b"$", "stray byte %r at %d" % (c, i)
        j = raw.index(b"#", i)
        body = raw[i + 1:j]
        assert int(raw[j + 1:j + 3], 16) == checksum(body), \
            "bad checksum on %r" % raw[i:j + 3]
        out.append(("packet", body))
        i = j + 3
    return out


def unrle(body: bytes) -> str:
    """Expands run-length encoding: c*N repeats c N - 29 more times."""
    out, i = bytearray(), 0
    while i < len(body):
        if body[i:i + 1] == b"*":
            n = body[i + 1] - 29
            assert chr(body[i + 1]) not in "#$" and 3 <= n <= 97, body
            out += out[-1:] * n
            i += 2
        else:
            out.append(body[i])
            i += 1
    return out.decode("latin-1")


def unescape(body: bytes) -> bytes:
    out, i = bytearray(), 0
    while i < len(body):
        if body[i:i + 1] == b"}":
            out.append(body[i + 1] ^ 0x20)
            i += 2
        else:
            assert body[i:i + 1] not in (b"#", b"$", b"*"), body
            out.append(body[i])
            i += 1
    return bytes(out)
