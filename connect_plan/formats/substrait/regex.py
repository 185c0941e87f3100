"""Regular expressions of a producer's dialect → the same language in Java's dialect (Spark's
``rlike`` and ``regexp_replace`` compile their pattern with ``java.util.regex``).

The producers run other engines: DuckDB RE2, DataFusion Rust's ``regex`` crate, and the
Substrait spec names ICU for its own regex functions. The three read most patterns as Java does,
and differ from it in a few places that change which strings match:

=============  ===============================  ==============================================
construct      RE2 / Rust / ICU                 Java (Spark)
=============  ===============================  ==============================================
``.``          RE2, Rust: any character but     any character but ``\\n``, ``\\r``, ``\\u0085``,
               ``\\n``; ICU: as Java             ``\\u2028``, ``\\u2029``: written ``[^\\n]``
``$``          RE2, Rust: the end of the text;  the end, or before a line terminator that
               ICU: as Java                      ends the text: written ``\\z``
``\\d \\w \\s``   RE2: ASCII; Rust, ICU: Unicode   ASCII (``\\s`` without ``\\x0B``): RE2's are
                                                 written as explicit classes; Rust's and ICU's
                                                 refused
``\\v``         RE2, Rust: ``\\x0B``              vertical whitespace (7 characters): written
                                                 ``\\x0B``
``[[:alpha:]]``  a POSIX class                  a class of ``[``, ``:``, ``a``...: refused
``&&``, ``--``   Rust: class set operations       ``&&`` intersects: refused
=============  ===============================  ==============================================

Anything else outside one small common subset is refused with its reason rather than guessed:
flags and inline options (``(?i)``: Java folds case in ASCII only), named groups, lookaround,
backreferences, word boundaries, possessive quantifiers, Unicode classes (``\\p{..}``), nested
classes, a ``{`` that is not a repetition. The subset: literal characters, ``\\`` + an ASCII
punctuation character, ``\\n \\t \\r \\f``, ``\\xHH`` / ``\\x{H..}``, ``\\A``, ``\\z``, ``^``, ``$``, ``.``,
groups ``(..)`` and ``(?:..)``, ``|``, the quantifiers ``* + ? {n} {n,} {n,m}`` (lazy too), and
bracket classes of characters and ranges (negated too).

The translation also says whether the pattern can match the empty string and whether every
match starts at the beginning of the text (a ``^`` heading each alternative): a replacement of
the first match only, or of every match around empty ones, is exact only then (the engines step
over empty matches differently).
"""

from __future__ import annotations

from typing import Literal

from ...records import Value, frozen

__all__ = ["DIALECTS", "Dialect", "RegexRefused", "Translated", "java_regex", "java_replacement"]

Dialect = Literal["re2", "rust", "icu"]

#: dialect → the engine that reads it (in messages)
DIALECTS: dict[str, str] = {"re2": "RE2", "rust": "Rust's regex crate", "icu": "ICU"}

#: RE2's ASCII classes (also inside a bracket class, without their brackets)
_RE2_CLASSES = {"d": "0-9", "w": "0-9A-Za-z_", "s": "\\t\\n\\f\\r "}
_PLAIN_ESCAPES = frozenset("ntrf")
_HEX = frozenset("0123456789abcdefABCDEF")


class RegexRefused(Exception):
    """A pattern (or replacement) this module does not translate, and why."""


@frozen
class Translated(Value):
    """A pattern in Java's dialect, whether it can match the empty string, whether every match
    of it starts at the beginning of the text, and its number of capturing groups."""

    java: str
    nullable: bool
    anchored: bool
    groups: int


def java_regex(pattern: str, dialect: Dialect) -> Translated:
    """``pattern`` (read as ``dialect`` reads it) in Java's dialect: the same strings match;
    :class:`RegexRefused` for a construct outside the common subset."""
    parser = _Parser(pattern, dialect)
    java, nullable, anchored = parser.alternation(top=True)
    if parser.pos != len(pattern):  # an unbalanced ')'
        raise RegexRefused(f"an unbalanced ')' at {parser.pos}")
    return Translated(java, nullable, anchored, parser.groups)


def java_replacement(replacement: str, dialect: Dialect, groups: int) -> str:
    """A ``regexp_replace`` replacement (RE2's or Rust's as DataFusion reads it: ``\\1`` is the
    first group) as Java's ``Matcher`` reads it (``$1``; ``\\`` quotes the next character).
    Only literal characters and ``\\N`` (``\\\\`` too, for RE2) are translated: Rust gives ``$`` a
    meaning of its own (named groups), so a ``$`` there is refused."""
    out: list[str] = []
    i = 0
    while i < len(replacement):
        ch = replacement[i]
        if ch == "\\":
            nxt = replacement[i + 1] if i + 1 < len(replacement) else ""
            if nxt.isdigit() and nxt.isascii():
                if int(nxt) > groups:
                    raise RegexRefused(f"the replacement refers to group {nxt}, the pattern has {groups}")
                following = replacement[i + 2] if i + 2 < len(replacement) else ""
                if following.isdigit():  # Java would read "$12" as group 12
                    raise RegexRefused("a group reference followed by a digit")
                out.append("$" + nxt)
                i += 2
                continue
            if nxt == "\\" and dialect == "re2":
                out.append("\\\\")
                i += 2
                continue
            raise RegexRefused(f"the replacement escape \\{nxt}")
        if ch == "$":
            if dialect != "re2":
                raise RegexRefused(f"'$' in a replacement ({DIALECTS[dialect]} reads it as a group reference)")
            out.append("\\$")
        else:
            out.append(ch)
        i += 1
    return "".join(out)


class _Parser:
    """A recursive-descent reader of the common subset, writing Java's text as it goes."""

    def __init__(self, pattern: str, dialect: Dialect) -> None:
        self.p = pattern
        self.dialect = dialect
        self.pos = 0
        self.groups = 0

    def peek(self, k: int = 0) -> str:
        i = self.pos + k
        return self.p[i] if i < len(self.p) else ""

    def refuse(self, what: str) -> RegexRefused:
        return RegexRefused(
            f"{what} at {self.pos} ({DIALECTS[self.dialect]} and Java read it differently, or only one has it)"
        )

    # alternation := sequence ('|' sequence)*
    def alternation(self, top: bool = False) -> tuple[str, bool, bool]:
        parts = [self.sequence()]
        while self.peek() == "|":
            self.pos += 1
            parts.append(self.sequence())
        if not top and self.peek() != ")":
            raise self.refuse("an unclosed group")
        java = "|".join(p[0] for p in parts)
        return java, any(p[1] for p in parts), all(p[2] for p in parts)

    # sequence := (atom quantifier?)*; anchored when it starts with '^' or '\A'
    def sequence(self) -> tuple[str, bool, bool]:
        out: list[str] = []
        nullable = True
        anchored = False
        first = True
        while self.pos < len(self.p) and self.peek() not in "|)":
            atom, atom_nullable, is_start = self.atom()
            quantified, atom_nullable = self.quantifier(atom, atom_nullable)
            if first and is_start and quantified == atom:
                anchored = True
            first = False
            out.append(quantified)
            nullable = nullable and atom_nullable
        return "".join(out), nullable, anchored

    def quantifier(self, atom: str, nullable: bool) -> tuple[str, bool]:
        ch = self.peek()
        if ch in ("*", "?"):
            self.pos += 1
            q, nullable = ch, True
        elif ch == "+":
            self.pos += 1
            q = ch
        elif ch == "{":
            q, low = self.repetition()
            nullable = nullable or low == 0
        else:
            return atom, nullable
        if self.peek() == "?":  # lazy: the same strings match
            self.pos += 1
            q += "?"
        if self.peek() in ("+", "*", "{") and self.peek():
            raise self.refuse(f"a quantifier after a quantifier ({self.peek()!r})")
        return atom + q, nullable

    def repetition(self) -> tuple[str, int]:
        end = self.p.find("}", self.pos)
        body = self.p[self.pos + 1 : end] if end >= 0 else ""
        low, _, high = body.partition(",")
        if end < 0 or not low.isdigit() or not low.isascii() or (high and not (high.isdigit() and high.isascii())):
            raise self.refuse("a '{' that is not a repetition {n}, {n,} or {n,m}")
        self.pos = end + 1
        return "{" + body + "}", int(low)

    def atom(self) -> tuple[str, bool, bool]:
        """One atom: its Java text, whether it can match empty, whether it is a start anchor."""
        ch = self.peek()
        if ch == "(":
            return self.group()
        if ch == "[":
            return self.bracket(), False, False
        if ch == "\\":
            return self.escape()
        self.pos += 1
        if ch == ".":
            return ("[^\\n]" if self.dialect in ("re2", "rust") else "."), False, False
        if ch == "^":
            return "^", True, True
        if ch == "$":
            return ("\\z" if self.dialect in ("re2", "rust") else "$"), True, False
        if ch in "*+?{":
            raise self.refuse(f"a quantifier {ch!r} with nothing to repeat")
        if ch in "]}":
            raise self.refuse(f"an unescaped {ch!r}")
        return ch, False, False

    def group(self) -> tuple[str, bool, bool]:
        self.pos += 1
        if self.peek() == "?":
            if self.peek(1) != ":":
                raise self.refuse("a group with flags, a name or a lookaround (?" + self.peek(1))
            self.pos += 2
            prefix = "(?:"
        else:
            self.groups += 1
            prefix = "("
        java, nullable, anchored = self.alternation()
        self.pos += 1  # ')'
        return prefix + java + ")", nullable, anchored

    def escape(self) -> tuple[str, bool, bool]:
        nxt = self.peek(1)
        self.pos += 2
        if nxt == "A":
            return "\\A", True, True
        if nxt == "z":
            return "\\z", True, False
        if nxt.lower() in _RE2_CLASSES and self.dialect == "re2":
            body = _RE2_CLASSES[nxt.lower()]
            return ("[^" if nxt.isupper() else "[") + body + "]", False, False
        return self.char_escape(nxt), False, False

    def char_escape(self, nxt: str) -> str:
        """An escape that stands for one character (outside or inside a bracket class)."""
        if nxt in _PLAIN_ESCAPES:
            return "\\" + nxt
        if nxt == "v" and self.dialect in ("re2", "rust"):
            return "\\x0B"
        if nxt == "x":
            return self.hex_escape()
        if nxt and nxt.isascii() and not nxt.isalnum() and not nxt.isspace():
            return "\\" + nxt
        raise RegexRefused(
            f"the escape \\{nxt} at {self.pos - 2}"
            + (f" ({DIALECTS[self.dialect]}'s \\{nxt} is Unicode, Java's ASCII)" if nxt.lower() in "dws" else "")
        )

    def hex_escape(self) -> str:
        if self.peek() == "{":
            end = self.p.find("}", self.pos)
            digits = self.p[self.pos + 1 : end] if end >= 0 else ""
            if not digits or not set(digits) <= _HEX or len(digits) > 6:
                raise self.refuse("a bad \\x{...} escape")
            self.pos = end + 1
            return "\\x{" + digits + "}"
        digits = self.p[self.pos : self.pos + 2]
        if len(digits) != 2 or not set(digits) <= _HEX:
            raise self.refuse("a bad \\xHH escape")
        self.pos += 2
        return "\\x" + digits

    def bracket(self) -> str:
        start = self.pos
        self.pos += 1
        out = ["["]
        if self.peek() == "^":
            out.append("^")
            self.pos += 1
        if self.peek() == "]":
            raise self.refuse("a ']' first in a class")
        items = 0
        while True:
            ch = self.peek()
            if not ch:
                raise RegexRefused(f"an unclosed class from {start}")
            if ch == "]":
                self.pos += 1
                break
            if ch == "[":
                raise self.refuse("a '[' in a class (Java nests classes, RE2 reads POSIX classes)")
            if ch in "&-~" and self.peek(1) == ch:
                raise self.refuse(f"{ch * 2!r} in a class (a set operation in Java or Rust)")
            if ch == "\\":
                nxt = self.peek(1)
                self.pos += 2
                if nxt.lower() in _RE2_CLASSES and self.dialect == "re2" and nxt.islower():
                    out.append(_RE2_CLASSES[nxt])
                else:
                    out.append(self.char_escape(nxt))
            else:
                self.pos += 1
                out.append(ch)
            items += 1
        if not items:
            raise self.refuse("an empty class")
        return "".join(out) + "]"
