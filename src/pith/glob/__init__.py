"""Every glob pith reads, one dialect per module, each compiled to Python regular expressions.

pith matches glob-like patterns in six places, and each follows the program whose behaviour it
copies, so they differ in small ways. The dialects and their entry points:

- **segment** (`compile_segment_glob`, `segment_glob_match`): the pruner's protected paths.
- **wildcard** (`command_matches`, `path_pattern`, `expand_home`): permission rules; command
  patterns for commands and names, path patterns for paths.
- **minimatch** (`minimatch`): the `skills` / `prompts` lists in settings (as `minimatch`).
- **gitignore** (`IgnoreRules`, `ignore_file_patterns`): ignore files in skill and prompt
  folders (as the `ignore` package of Node).
- **ripgrep** (`parse_ripgrep_rule`, `ripgrep_verdict`, `GlobError`): ignore files and
  `--glob` in the pure-Python walk behind `find` and `grep` (as ripgrep).
- **find** (`find_glob_regex`): the `pattern` of the `find` tool.

The contracts side by side ("one segment" means the wildcard never matches `/`):

- `*`: one segment in segment, minimatch, gitignore, ripgrep and find; any run of characters,
  `/` and newlines included, in wildcard.
- `**`: crosses segments everywhere. `**/` also matches no directory in segment, wildcard path
  patterns, gitignore, ripgrep and find. minimatch, gitignore, ripgrep and find give `**` that
  meaning only as a whole segment (elsewhere it is `*`); segment and wildcard path patterns read
  `**/` anywhere; in wildcard command patterns `**` is just `*`.
- `?`: one character of one segment; in wildcard, any one character.
- `[...]`: a character class (`!` or `^` negates) in minimatch, gitignore (also `[:alpha:]`
  and the other POSIX classes), ripgrep and find; literal text in segment and wildcard. An
  unclosed `[` is literal, except that gitignore drops such a rule and ripgrep's `--glob`
  refuses it (`GlobError`).
- `{a,b}`: alternatives in minimatch (also ranges `{1..3}`), ripgrep and find; literal
  elsewhere.
- `\\`: escapes the next character in minimatch, gitignore, ripgrep and find; literal in
  wildcard; read as `/` (in pattern and path alike) in segment.
- `/` and anchoring: segment, wildcard and minimatch match the whole path. In gitignore and
  ripgrep a pattern with no `/` but a trailing one matches a name at any depth, any other is
  anchored at its ignore file's folder, and a trailing `/` means directories only. find's
  caller matches a pattern without `/` against names and one with `/` against the relative
  path. In wildcard path patterns a trailing `/` means the folder and everything in it, and
  `dir/*` also matches `dir`.
- Leading `!`: negates the pattern in minimatch; re-includes what earlier rules ignored in
  gitignore and ripgrep (the last matching rule wins); literal in segment, wildcard and find.
- Leading `#`: a comment that matches nothing in minimatch, gitignore and ripgrep; literal
  elsewhere.
- Leading `.` of a name: only a pattern segment starting with `.` matches it in minimatch (and
  `**` never crosses such a folder); no special meaning elsewhere.
- Leading `~`, `$HOME` or `${HOME}`: the home directory in wildcard; literal elsewhere.
- Case: gitignore ignores case; find ignores it when the pattern has no capital letter (the
  tool's choice, passed as `ignore_case`); every other dialect is case-sensitive.

Shared mechanisms live in `_translate`: the `*` / `?` / `**` loop of segment and wildcard, and
the segment reader (escapes, `*`, `?`, brackets) of minimatch and gitignore. The table in
`tests/glob/test_dialects.py` runs the same patterns through every dialect.
"""

from __future__ import annotations

from pith.glob._find import find_glob_regex
from pith.glob._gitignore import IgnoreRules, ignore_file_patterns
from pith.glob._minimatch import minimatch
from pith.glob._ripgrep import GlobError, RipgrepRule, parse_ripgrep_rule, ripgrep_verdict
from pith.glob._segment import compile_segment_glob, segment_glob_match
from pith.glob._wildcard import PathPattern, command_matches, expand_home, path_pattern

__all__ = [
    "GlobError",
    "IgnoreRules",
    "PathPattern",
    "RipgrepRule",
    "command_matches",
    "compile_segment_glob",
    "expand_home",
    "find_glob_regex",
    "ignore_file_patterns",
    "minimatch",
    "parse_ripgrep_rule",
    "path_pattern",
    "ripgrep_verdict",
    "segment_glob_match",
]
