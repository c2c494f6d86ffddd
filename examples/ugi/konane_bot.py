#!/usr/bin/env python3
"""A complete Konane engine speaking UGI on stdin/stdout, in plain Python 3 (no packages).

It has its own move generator (the rules of docs/rules.md: variants brainking and free, any
board from 1x1 to 20x20) and chooses at random or greedily (the move leaving it the most moves
compared with its opponent). Enter it in a konane tournament:

    build/konane scripts/tournament.lua --bot "ugi:python3 examples/ugi/konane_bot.py" \\
        --bot random --size 6x6 --games 10 --out t-py

Options (setoption name NAME value VALUE): strategy (random or greedy), seed, variant, rows, cols.
"""

import random
import sys

FILES = "abcdefghijklmnopqrstuvwxyz"
DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1))


class Position:
    """A board (rows x cols), its pieces {(file, rank): 'x' or 'o'} and the side to move."""

    def __init__(self, rows, cols, pieces, black_to_move, variant):
        self.rows, self.cols = rows, cols
        self.pieces = pieces
        self.black = black_to_move
        self.variant = variant

    @staticmethod
    def start(rows, cols, variant):
        pieces = {}
        for r in range(rows):
            for f in range(cols):
                # a1 (0, 0) is dark and holds White; light squares hold Black
                pieces[(f, r)] = "o" if (f + r) % 2 == 0 else "x"
        return Position(rows, cols, pieces, True, variant)

    @staticmethod
    def from_fen(text, variant):
        board, side = text.split()
        if side not in ("b", "w"):
            raise ValueError("side to move must be b or w")
        ranks = board.split("/")
        rows = len(ranks)
        pieces, cols = {}, None
        for i, rank in enumerate(ranks):
            r = rows - 1 - i
            f, num = 0, ""
            for ch in rank + "/":
                if ch.isdigit():
                    num += ch
                    continue
                if num:
                    f += int(num)
                    num = ""
                if ch == "/":
                    break
                if ch == ".":
                    f += 1
                elif ch in "xo":
                    if (ch == "x") != ((f + r) % 2 == 1):
                        raise ValueError("a piece on a square of the other colour")
                    pieces[(f, r)] = ch
                    f += 1
                else:
                    raise ValueError("unexpected character %r" % ch)
            if cols is None:
                cols = f
            elif cols != f:
                raise ValueError("ranks of different lengths")
        if not (1 <= rows <= 20 and cols and 1 <= cols <= 20):
            raise ValueError("board size out of range")
        return Position(rows, cols, pieces, side == "b", variant)

    def me(self):
        return "x" if self.black else "o"

    def own_squares(self):
        """The squares that hold (or would hold) the mover's colour."""
        want = 1 if self.black else 0
        return [(f, r) for r in range(self.rows) for f in range(self.cols)
                if (f + r) % 2 == want and self.pieces.get((f, r)) == self.me()]

    def moves(self):
        """Legal moves as (text, removed squares, (from, to) or None)."""
        empty = self.rows * self.cols - len(self.pieces)
        if empty == 0:
            own = set(self.own_squares())
            if self.variant == "free":
                allowed = own
            else:
                r, c = self.rows, self.cols
                cands = [(0, 0), (c - 1, 0), (0, r - 1), (c - 1, r - 1)]
                f0, f1, r0, r1 = (c - 1) // 2, c // 2, (r - 1) // 2, r // 2
                cands += [(f0, r0), (f1, r0), (f0, r1), (f1, r1)]
                allowed = [s for s in dict.fromkeys(cands) if s in own]
            return [(square(s), s, None) for s in sorted(allowed, key=lambda s: (s[1], s[0]))]
        if empty == 1:
            hole = next((f, r) for r in range(self.rows) for f in range(self.cols)
                        if (f, r) not in self.pieces)
            out = []
            for df, dr in DIRS:
                s = (hole[0] + df, hole[1] + dr)
                if self.pieces.get(s) == self.me():
                    out.append((square(s), s, None))
            return out
        me, them = self.me(), "o" if self.black else "x"
        out = []
        for (f, r), p in list(self.pieces.items()):
            if p != me:
                continue
            for df, dr in DIRS:
                cf, cr = f, r
                while True:
                    over = (cf + df, cr + dr)
                    land = (cf + 2 * df, cr + 2 * dr)
                    if not (0 <= land[0] < self.cols and 0 <= land[1] < self.rows):
                        break
                    if self.pieces.get(over) != them or land in self.pieces:
                        break
                    cf, cr = land
                    out.append(("%s-%s" % (square((f, r)), square(land)), (f, r), land))
        return out

    def play(self, move):
        text, a, b = move
        if b is None:
            del self.pieces[a]
        else:
            df = (b[0] > a[0]) - (b[0] < a[0])
            dr = (b[1] > a[1]) - (b[1] < a[1])
            p = self.pieces.pop(a)
            f, r = a
            while (f, r) != b:
                del self.pieces[(f + df, r + dr)]
                f, r = f + 2 * df, r + 2 * dr
            self.pieces[b] = p
        self.black = not self.black

    def copy(self):
        return Position(self.rows, self.cols, dict(self.pieces), self.black, self.variant)

    def find(self, text):
        """The legal move written 'text' (canonical, upper case, no separator or full path)."""
        t = text.lower().replace("-", "")
        squares, i = [], 0
        while i < len(t):
            j = i + 1
            while j < len(t) and t[j].isdigit():
                j += 1
            squares.append(t[i:j])
            i = j
        for m in self.moves():
            parts = m[0].split("-")
            if squares == parts or (len(squares) > 2 and [squares[0], squares[-1]] == parts):
                return m
        return None


def square(s):
    return "%s%d" % (FILES[s[0]], s[1] + 1)


class Engine:
    def __init__(self):
        self.options = {"strategy": "greedy", "seed": "0", "variant": "brainking",
                        "rows": "8", "cols": "8"}
        self.pos = None
        self.rng = random.Random(0)

    def out(self, line):
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def error(self, text):
        self.out("info string error: " + text)

    def position(self, words):
        self.pos = None  # a bad position never leaves the old one behind
        try:
            i = 1
            if words[i] == "startpos":
                pos = Position.start(int(self.options["rows"]), int(self.options["cols"]),
                                     self.options["variant"])
                i += 1
            elif words[i] == "fen":
                j = words.index("moves") if "moves" in words else len(words)
                pos = Position.from_fen(" ".join(words[i + 1:j]), self.options["variant"])
                i = j
            else:
                return self.error("position: expected startpos or fen")
            if i < len(words):
                if words[i] != "moves":
                    return self.error("position: expected moves")
                for text in words[i + 1:]:
                    m = pos.find(text)
                    if m is None:
                        return self.error("position: illegal move " + text)
                    pos.play(m)
            self.pos = pos
        except (ValueError, IndexError) as e:
            self.error("position: %s" % e)

    def score(self, pos, move):
        after = pos.copy()
        after.play(move)
        theirs = len(after.moves())
        if theirs == 0:
            return 10 ** 6
        after.black = not after.black
        return len(after.moves()) - theirs

    def go(self):
        if self.pos is None:
            self.error("go: no valid position")
            return self.out("bestmove 0000")
        moves = self.pos.moves()
        if not moves:
            self.error("go: the game is over")
            return self.out("bestmove 0000")
        if self.options["strategy"] == "random":
            best = self.rng.choice(moves)
        else:
            scored = [(self.score(self.pos, m), m) for m in moves]
            top = max(s for s, _ in scored)
            best = self.rng.choice([m for s, m in scored if s == top])
            self.out("info depth 1 score cp %d nodes %d" % (min(top, 30000) * 100, len(moves)))
        self.out("bestmove " + best[0])

    def query(self, what):
        if self.pos is None:
            return self.error("query: no valid position")
        over = not self.pos.moves()
        if what == "gameover":
            self.out("response " + ("true" if over else "false"))
        elif what == "p1turn":
            self.out("response " + ("true" if self.pos.black else "false"))
        elif what == "result":
            if not over:
                self.out("response none")
            else:  # the side to move has no move and loses
                self.out("response " + ("p2win" if self.pos.black else "p1win"))
        else:
            self.error("query: unknown " + what)

    def handle(self, line):
        words = line.split()
        if not words:
            return True
        cmd = words[0]
        if cmd == "ugi":
            self.out("id name konane-%s-py" % self.options["strategy"])
            self.out("id author the konane examples")
            self.out("option name strategy type combo default greedy var random var greedy")
            self.out("option name seed type string default 0")
            self.out("option name variant type combo default brainking var brainking var free")
            self.out("option name rows type spin default 8 min 1 max 20")
            self.out("option name cols type spin default 8 min 1 max 20")
            self.out("ugiok")
        elif cmd == "isready":
            self.out("readyok")
        elif cmd == "setoption" and len(words) >= 5 and words[1] == "name" and words[3] == "value":
            name, value = words[2].lower(), " ".join(words[4:])
            if name not in self.options:
                return self.error("unknown option " + name) or True
            if name in ("rows", "cols") and not (value.isdigit() and 1 <= int(value) <= 20):
                return self.error("%s must be 1..20" % name) or True
            self.options[name] = value
            if name == "seed":
                self.rng = random.Random(value)
        elif cmd == "uginewgame":
            self.rng = random.Random(self.options["seed"])
        elif cmd == "position" and len(words) >= 2:
            self.position(words)
        elif cmd == "go":
            self.go()
        elif cmd == "stop":
            pass  # every search here is instant
        elif cmd == "query" and len(words) == 2:
            self.query(words[1])
        elif cmd == "quit":
            return False
        else:
            self.error("unknown command: " + line[:40])
        return True


def main():
    engine = Engine()
    for line in sys.stdin:
        if not engine.handle(line.strip()):
            break


if __name__ == "__main__":
    main()
