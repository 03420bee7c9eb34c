"""Bash as the permission system and the guard read it: one parser, one reading of words, one
way through statements.

- **Parsing** (`parse_bash`): mvdan/sh's parser (the `shfmt` binary) turns a command into a
  tree of plain dicts, with byte offsets into the command's UTF-8 text; plain-word commands
  are parsed in Python with the same result. `parse_bash_leniently` also accepts what bash
  runs and the parser refuses (an array element assigned before a command).
- **Nodes** (`child`, `children`, `string`, `offset`, `source_slice`, `walk`): typed lookups
  in that tree, and every node under one, in source order.
- **Words**: quote removal with each character marked by how it was typed
  (`unquoted_chars`, `double_quoted_chars`), `$name` (`simple_parameter`), the strict reading
  that needs no expansion (`literal_word`), and bash's expansions with what the command's
  text determines (`expand_word` in a `Scope`); `taint` finds the names a command may set
  behind such an analysis's back.
- **Statements**: `&&`/`||` chains (`chain`) and pipelines (`stages`) flattened into their
  members in source order, and a statement's own text.

Nothing here knows about tools, settings or extensions.
"""

from pith.shell._expand import (
    Expansion,
    Scope,
    assignment_value,
    expand_word,
    lone_process_substitution,
    word_text,
)
from pith.shell._lenient import parse_bash_leniently
from pith.shell._parse import (
    SHFMT_ENV,
    ShellSyntaxError,
    ShellTree,
    clear_cache,
    find_shfmt,
    parse_bash,
    takes_fast_path,
)
from pith.shell._quotes import (
    LIT,
    QUOTED,
    VAR,
    Char,
    command_words,
    decode_ansi_c,
    double_quoted_chars,
    is_identifier,
    literal_word,
    quiet_word,
    simple_parameter,
    unquoted_chars,
)
from pith.shell._statements import (
    PIPE_OPS,
    call_name,
    chain,
    content_end,
    is_bare,
    stages,
    statement_text,
)
from pith.shell._taint import Taint, taint
from pith.shell._tree import (
    Node,
    assignment_name,
    child,
    children,
    offset,
    source_slice,
    string,
    walk,
)

__all__ = [
    "LIT",
    "PIPE_OPS",
    "QUOTED",
    "SHFMT_ENV",
    "VAR",
    "Char",
    "Expansion",
    "Node",
    "Scope",
    "ShellSyntaxError",
    "ShellTree",
    "Taint",
    "assignment_name",
    "assignment_value",
    "call_name",
    "chain",
    "child",
    "children",
    "clear_cache",
    "command_words",
    "content_end",
    "decode_ansi_c",
    "double_quoted_chars",
    "expand_word",
    "find_shfmt",
    "is_bare",
    "is_identifier",
    "literal_word",
    "lone_process_substitution",
    "offset",
    "parse_bash",
    "parse_bash_leniently",
    "quiet_word",
    "simple_parameter",
    "source_slice",
    "stages",
    "statement_text",
    "string",
    "taint",
    "takes_fast_path",
    "unquoted_chars",
    "walk",
    "word_text",
]
