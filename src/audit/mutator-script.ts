/**
 * The Python program that makes an audit's mutants, run with the task's own interpreter (its
 * era's `ast` and `tokenize`, Python 2.7 to 3.13) in the grade's sandbox. It reads JSON on
 * stdin and writes JSON to the file its first argument names:
 *   in:  {"files": [{"path", "source", "changed": [line, ...]}],
 *         "variants": [{"id", "path", "source"}]}
 *   out: {"mutants": [{"path", "line", "operator", "description", "source", "equivalent"}],
 *         "variants": [{"id", "compiles", "equivalent"}]}
 * Mutants are token edits on the lines the gold patch changed: a swapped comparison, a negated
 * condition, a dropped statement, a changed constant, a different return value. Each must
 * compile; one whose syntax tree (docstrings left out) equals the gold's is `equivalent`. The
 * same test tells which given variants (hunks removed) compile and which are equivalent.
 */
export const MUTATOR_SCRIPT = String.raw`
import ast
import json
import sys
import tokenize

PY2 = sys.version_info[0] == 2
SWAPS = {"<": ">=", ">": "<=", "<=": ">", ">=": "<", "==": "!=", "!=": "=="}
NOT_DROPPED = set("if elif else for while try except finally with def class return pass async "
                  "global nonlocal import from break continue lambda yield await".split())


def native(text):
    if PY2 and not isinstance(text, str):
        return text.encode("utf-8")
    return text


def out(text):
    if PY2 and isinstance(text, str):
        return text.decode("utf-8", "replace")
    return text


def compiles(source):
    try:
        compile(source, "<mutant>", "exec")
        return True
    except (SyntaxError, ValueError, TypeError):
        return False


def is_docstring(statement):
    if not isinstance(statement, ast.Expr):
        return False
    value = statement.value
    # Before 3.8 a string is ast.Str; from 3.8 on ast.Str is a deprecated alias (a warning on
    # every use from 3.12, gone in 3.14), so it is only asked for where it is the real node.
    if sys.version_info < (3, 8) and isinstance(value, ast.Str):
        return True
    constant = getattr(ast, "Constant", None)
    return constant is not None and isinstance(value, constant) and isinstance(value.value, type(u""))


def strip_docstrings(tree):
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and not isinstance(node, (ast.If, ast.For, ast.While, ast.With)):
            if is_docstring(body[0]):
                node.body = body[1:] or [ast.Pass()]
    return tree


def shape(source):
    try:
        return ast.dump(strip_docstrings(ast.parse(source)))
    except Exception:
        return None


def tokens_of(source):
    lines = source.splitlines(True)
    state = {"i": 0}

    def readline():
        if state["i"] >= len(lines):
            return "" if not PY2 else native("")
        state["i"] += 1
        return lines[state["i"] - 1]

    return list(tokenize.generate_tokens(readline)), lines


def logical_lines(tokens):
    skip = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
    current = []
    for token in tokens:
        if token[0] in skip:
            continue
        if token[0] == tokenize.NEWLINE:
            if current:
                yield current, token
            current = []
        elif token[0] == tokenize.ENDMARKER:
            break
        else:
            current.append(token)


def has_top_colon(logical):
    depth = 0
    for token in logical:
        if token[0] != tokenize.OP:
            continue
        if token[1] in "([{":
            depth += 1
        elif token[1] in ")]}":
            depth -= 1
        elif token[1] == ":" and depth == 0:
            return True
    return False


def replace(lines, start, end, new):
    before = "".join(lines[:start[0] - 1]) + lines[start[0] - 1][:start[1]]
    after = lines[end[0] - 1][end[1]:] + "".join(lines[end[0]:])
    return before + new + after


def mutate(path, source, changed):
    tokens, lines = tokens_of(source)
    found = []

    def add(line, operator, description, mutated):
        found.append((line, operator, description, mutated))

    for logical, newline in logical_lines(tokens):
        rows = set(range(logical[0][2][0], newline[2][0] + 1))
        if not rows & changed:
            continue
        first = logical[0]
        line = first[2][0]
        words = [t[1] for t in logical]
        for index, token in enumerate(logical):
            kind, text, start, end = token[0], token[1], token[2], token[3]
            if start[0] not in changed:
                continue
            after = logical[index + 1] if index + 1 < len(logical) else None
            before = logical[index - 1] if index > 0 else None
            if kind == tokenize.OP and text in SWAPS:
                add(start[0], "swap-comparison", "%s becomes %s" % (text, SWAPS[text]),
                    replace(lines, start, end, SWAPS[text]))
            elif kind == tokenize.NAME and text == "is":
                if after is not None and after[1] == "not":
                    add(start[0], "swap-comparison", "is not becomes is", replace(lines, start, after[3], "is"))
                else:
                    add(start[0], "swap-comparison", "is becomes is not", replace(lines, start, end, "is not"))
            elif kind == tokenize.NAME and text == "not" and after is not None and after[1] == "in":
                add(start[0], "swap-comparison", "not in becomes in", replace(lines, start, after[3], "in"))
            elif kind == tokenize.NAME and text == "in" and "for" not in words and (before is None or before[1] != "not"):
                add(start[0], "swap-comparison", "in becomes not in", replace(lines, start, end, "not in"))
            elif kind == tokenize.NUMBER and text.isdigit():
                add(start[0], "change-constant", "%s becomes %d" % (text, int(text) + 1),
                    replace(lines, start, end, str(int(text) + 1)))
            elif kind == tokenize.NAME and text in ("True", "False"):
                other = "False" if text == "True" else "True"
                add(start[0], "change-constant", "%s becomes %s" % (text, other), replace(lines, start, end, other))
            elif kind == tokenize.STRING and len(logical) > 1 and "f" not in text[:2].lower():
                new = '"lab"' if text.strip("'\"uUbBrR") == "" else '""'
                add(start[0], "change-constant", "a string becomes %s" % new, replace(lines, start, end, new))
        keyword = first[1]
        if first[0] == tokenize.NAME and keyword in ("if", "elif", "while"):
            depth = 0
            for token in logical[1:]:
                if token[1] in "([{" and token[0] == tokenize.OP:
                    depth += 1
                elif token[1] in ")]}" and token[0] == tokenize.OP:
                    depth -= 1
                elif token[1] == ":" and depth == 0:
                    head = replace(lines, token[2], token[2], ")")
                    head_lines = head.splitlines(True)
                    add(line, "negate-condition", "the %s condition is negated" % keyword,
                        replace(head_lines, first[3], first[3], " not ("))
                    break
        elif first[0] == tokenize.NAME and keyword == "return" and len(logical) > 1:
            if not (len(logical) == 2 and logical[1][1] == "None"):
                add(line, "change-return", "returns None instead", replace(lines, first[3], newline[2], " None"))
        elif keyword not in NOT_DROPPED and first[1] != "@" and first[0] != tokenize.STRING and not has_top_colon(logical):
            add(line, "drop-statement", "the statement is dropped", replace(lines, first[2], newline[2], "pass"))
    return found


def main():
    request = json.loads(sys.stdin.read())
    result = {"mutants": [], "variants": []}
    for entry in request.get("files", []):
        source = native(entry["source"])
        gold_shape = shape(source)
        seen = set([source])
        try:
            found = mutate(entry["path"], source, set(entry["changed"]))
        except (tokenize.TokenError, SyntaxError, IndentationError):
            continue
        for line, operator, description, mutated in found:
            if mutated in seen or not compiles(mutated):
                continue
            seen.add(mutated)
            result["mutants"].append({
                "path": entry["path"], "line": line, "operator": operator,
                "description": "line %d: %s" % (line, description), "source": out(mutated),
                "equivalent": gold_shape is not None and shape(mutated) == gold_shape,
            })
    golds = dict((entry["path"], shape(native(entry["source"]))) for entry in request.get("files", []))
    for variant in request.get("variants", []):
        source = native(variant["source"])
        gold_shape = golds.get(variant["path"])
        result["variants"].append({
            "id": variant["id"], "compiles": compiles(source),
            "equivalent": gold_shape is not None and shape(source) == gold_shape,
        })
    with open(sys.argv[1], "w") as handle:
        handle.write(json.dumps(result))


main()
`;
