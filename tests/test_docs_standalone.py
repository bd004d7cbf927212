"""The docs stand on their own: they name only files of this repository, and the rules pages
hold a heading for every rule id the engine's rejections cite.

* Every relative link of docs/**/*.md and README.md points at a file or folder inside the
  repository that exists, and its ``#anchor``, if any, at a heading of the page linked.
* Every path written in code (inline or fenced) that starts with ``../`` is refused (it leaves
  the checkout the commands run from); every one that starts with a top-level entry of the
  repository (``tests/...``, ``engine/...``) must exist (``<game>``-style placeholders and
  ``*`` match anything).
* Every ``*.md`` or ``*.proto`` file named anywhere in the text exists somewhere in the
  repository (so no page sends its reader to a rules file or format file it does not ship),
  except the value of a command-line option (``--markdown out.md``: a file the command writes).
* A worked example's scenario file, named in docs/rules/<game>.md, is one of
  tests/vectors/<game>/.
* A client that receives ``rule: "A14"`` can look it up: every rule id cited by a rejection in
  engine/<game>/ (and by the seat clocks, for every game) begins a heading of
  docs/rules/<game>.md.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
RULES = REPO / "docs" / "rules"
SKIPPED_DIRS = frozenset({".git", ".venv", "node_modules", "__pycache__", "data"})

#: Game package -> its rules page (and its vectors folder, by the same name).
GAMES = {"seep": "seep", "contract_rummy": "contract-rummy", "all_fours": "all-fours"}
#: Rejections every game can give, from outside its package (the seat clocks).
SHARED_REJECTION_SOURCES = (REPO / "engine" / "core", REPO / "service" / "clocks.py")
#: Functions whose call builds a rejection, and the position of their ``rule`` argument.
REJECTION_CALLS = {"reject": 2, "Rejection": 2, "illegal": 1, "_illegal": 1, "_invalid": 1}
RULE_ID = re.compile(r"^(A\.?\d+(\.\d+)*( (step|rule) \d+| [A-Z]\d+)?|B-\d+|clock|seat)$")

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
INLINE_CODE = re.compile(r"`([^`\n]+)`")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$", re.MULTILINE)
NAMED_FILE = re.compile(r"(?<![\w/.-])([\w-]+(?:\.[\w-]+)*\.(?:md|proto))\b")
URL = re.compile(r"\b(?:https?|ftp)://\S+")
#: A command-line option and its value (``--markdown out.md`` names a file the command writes).
OPTION_VALUE = re.compile(r"(?<!\S)--[\w-]+[ =]\S+")


def documents() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def repo_files() -> Iterator[Path]:
    stack = [REPO]
    while stack:
        folder = stack.pop()
        for entry in folder.iterdir():
            if entry.is_dir():
                if entry.name not in SKIPPED_DIRS and not entry.name.endswith(".egg-info"):
                    stack.append(entry)
            else:
                yield entry


def top_level_entries() -> set[str]:
    return {
        entry.name
        for entry in REPO.iterdir()
        if entry.name not in SKIPPED_DIRS and not entry.name.startswith(".") and not entry.name.endswith(".egg-info")
    }


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*]", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for _level, title in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        base = slug(title)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def headings(page: Path) -> list[str]:
    return [title for _level, title in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8")))]


def code_words(text: str) -> Iterator[str]:
    """Every whitespace-separated word of the fenced blocks and inline code spans."""
    for block in FENCE.findall(text):
        yield from block.split()
    for span in INLINE_CODE.findall(FENCE.sub("", text)):
        yield from span.split()


def path_problem(word: str, tops: set[str]) -> str | None:
    """Why a word written in code names no file of the repository (None: fine, or not a path)."""
    word = word.strip("\"'`,;()[]{}")
    word = re.sub(r"(::[\w\[\]-]+|:\d+)$", "", word).rstrip(".:")
    if word.startswith("../"):
        return "a path outside the repository"
    if "://" in word or "=" in word:
        return None
    first = word.removeprefix("./").split("/", 1)[0]
    if first not in tops or ("/" not in word and first != word):
        return None
    pattern = re.sub(r"<[^>/]*>", "*", word.removeprefix("./").rstrip("/"))
    if "*" in pattern:
        return None if any(REPO.glob(pattern)) else "no file matches it"
    return None if (REPO / pattern).exists() else "no such file or folder"


def test_links_point_at_files_of_the_repository() -> None:
    problems = []
    for page in documents():
        text = FENCE.sub("", page.read_text(encoding="utf-8"))
        for target in LINK.findall(text):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            where, _, anchor = target.partition("#")
            linked = (page.parent / where).resolve() if where else page
            name = page.relative_to(REPO)
            if not linked.is_relative_to(REPO):
                problems.append(f"{name}: {target} leaves the repository")
            elif not linked.exists():
                problems.append(f"{name}: {target} does not exist")
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                problems.append(f"{name}: {target}: no heading #{anchor} in {linked.relative_to(REPO)}")
    assert not problems, "\n".join(problems)


def test_paths_in_code_are_files_of_the_repository() -> None:
    tops = top_level_entries()
    problems = []
    for page in documents():
        for word in code_words(page.read_text(encoding="utf-8")):
            problem = path_problem(word, tops)
            if problem:
                problems.append(f"{page.relative_to(REPO)}: `{word}`: {problem}")
    assert not problems, "\n".join(problems)


def test_files_named_in_the_text_exist_in_the_repository() -> None:
    shipped = {path.name for path in repo_files()}
    problems = []
    for page in documents():
        text = OPTION_VALUE.sub("", URL.sub("", page.read_text(encoding="utf-8")))
        for name in sorted(set(NAMED_FILE.findall(text))):
            if name not in shipped:
                problems.append(f"{page.relative_to(REPO)}: names {name}, which the repository does not hold")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("folder", GAMES.values())
def test_worked_examples_name_the_project_vectors(folder: str) -> None:
    page = RULES / f"{folder}.md"
    vectors = REPO / "tests" / "vectors" / folder
    named = {word for word in INLINE_CODE.findall(page.read_text(encoding="utf-8")) if word.endswith(".json")}
    assert len(named) >= 8, f"{page.name} names only {len(named)} scenario files"
    missing = sorted(name for name in named if not (vectors / name).is_file())
    assert not missing, f"{page.name} names scenarios that are not in {vectors.relative_to(REPO)}: {missing}"


def _rule_argument(call: ast.Call) -> ast.expr | None:
    name = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", None)
    if name not in REJECTION_CALLS:
        return None
    for keyword in call.keywords:
        if keyword.arg == "rule":
            return keyword.value
    index = REJECTION_CALLS[name]
    return call.args[index] if len(call.args) > index else None


def cited_rules(*sources: Path) -> set[str]:
    """The rule ids a rejection built in these files or folders may carry.

    Every constant rule argument of a rejection call, every default of a ``rule`` parameter, and
    every other string constant shaped like a rule id (rule ids chosen into a variable first)."""
    files = [file for source in sources for file in ([source] if source.is_file() else sorted(source.glob("*.py")))]
    found: set[str] = set()
    for file in files:
        tree = ast.parse(file.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                argument = _rule_argument(node)
                if isinstance(argument, ast.Constant) and isinstance(argument.value, str) and argument.value:
                    assert RULE_ID.match(argument.value), f"{file}: unexpected rule id {argument.value!r}"
                    found.add(argument.value)
            elif isinstance(node, ast.arguments):
                named = node.posonlyargs + node.args
                for parameter, default in zip(named[len(named) - len(node.defaults) :], node.defaults, strict=True):
                    if (
                        parameter.arg == "rule"
                        and isinstance(default, ast.Constant)
                        and isinstance(default.value, str)
                        and default.value
                    ):
                        found.add(default.value)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and RULE_ID.match(node.value):
                found.add(node.value)
    return found


def has_heading(titles: list[str], rule: str) -> bool:
    pattern = re.compile(rf"^{re.escape(rule)}(?!\w|\.\d)")
    return any(pattern.match(title) for title in titles)


def test_the_rule_finder_sees_every_kind_of_rejection() -> None:
    """The scan finds rules given as literals, through helpers, as defaults and via variables."""
    assert {"A3", "A7", "A10", "A14", "A17"} <= cited_rules(REPO / "engine" / "all_fours")
    assert {"A5.7", "A15", "A8.1", "A8.3", "A7"} <= cited_rules(REPO / "engine" / "seep")
    assert {"A.13", "A.8 R1", "A.10 rule 3", "A.8 D3"} <= cited_rules(REPO / "engine" / "contract_rummy")
    assert "clock" in cited_rules(*SHARED_REJECTION_SOURCES)
    assert has_heading(["A8.3 House: build"], "A8.3")
    assert not has_heading(["A8.3 House: build"], "A8")
    assert not has_heading(["A12. Baazis"], "A1")
    assert has_heading(["A.8 step 1: the draw"], "A.8 step 1")


@pytest.mark.parametrize("game", GAMES)
def test_every_cited_rule_has_a_heading(game: str) -> None:
    page = RULES / f"{GAMES[game]}.md"
    titles = headings(page)
    rules = cited_rules(REPO / "engine" / game, *SHARED_REJECTION_SOURCES)
    missing = sorted(rule for rule in rules if not has_heading(titles, rule))
    assert not missing, f"{page.relative_to(REPO)} has no heading for the rule ids {missing}"
