"""The import graph of certify/ (and of the certificates/ scripts), read from the sources with ast.

    .venv/bin/python tools/import_graph.py               every module and what it imports
    .venv/bin/python tools/import_graph.py --dot         the same as Graphviz (dot -Tsvg)
    .venv/bin/python tools/import_graph.py --check       only the faults; exit 1 if there are any

An edge is an import anywhere in a module: at the top, or inside a function (shown as `name*`:
imported when first needed, to keep start-up short, but a dependency all the same, and a circle
through one is still a circle). A string that is a module's full name
("certify.commands.explain", as importlib.import_module is given it) counts as such an import
too.

The faults (--check): a circle (a strongly connected set of two or more modules); an import
upward, from a layer of LAYERS (README's Layout, bottom first: certify's folders) into a later
one, or into the command line (certify.commands.cli, which only certify.__main__ may import);
an import of the reference search (certify.engine.reference.search) by anything but the
engine's face (certify/engine/__init__.py), the one face of both engines; inside a folder with
an order of its own (INSIDE: the format's, a module a job), an import of a module of the same
step or a later one, so that the writer and the reader stay apart and only the reader knows the
old versions.

Importing a submodule runs its package's __init__ too; that is not drawn, since no package
here does more in its __init__ than import its own command.
"""

import argparse
import ast
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "certify"
SCRIPTS = "certificates"  # scripts that import each other by bare name, and certify
# certify's layers, as README's Layout names them, bottom first: the folders (and the two
# modules of words every layer uses). A module may import from its own layer and those before
# it, never from a later one.
LAYERS = (
    ("game", ("game",)),
    ("words", ("outcome", "output")),
    ("format", ("format",)),
    ("engine", ("engine",)),
    ("the run", ("run",)),
    ("commands", ("commands", "__main__")),
)
# The order inside a folder, bottom first, each step's modules importing only from earlier steps:
# the format's constants and checks (and its file names); the old versions' read paths; the
# writer and the reader, which never import each other; range certificates, made of them all.
INSIDE = {
    "format": (("spec", "names"), ("legacy",), ("writer", "reader"), ("ranges",)),
}
CLI = f"{PACKAGE}.commands.cli"
REFERENCE = f"{PACKAGE}.engine.reference.search"
FACE = f"{PACKAGE}.engine"


def modules():
    """{module name: path} for every .py file of certify/ and certificates/."""
    found = {}
    for folder, _, files in os.walk(os.path.join(ROOT, PACKAGE)):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                parts = os.path.relpath(path, ROOT)[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts.pop()
                found[".".join(parts)] = path
    for f in os.listdir(os.path.join(ROOT, SCRIPTS)):
        if f.endswith(".py"):
            found[f"{SCRIPTS}/{f[:-3]}"] = os.path.join(ROOT, SCRIPTS, f)
    return found


def resolve(name, known):
    """The known module `name` stands for: itself, or its package (an imported name that is
    not a module is an attribute of the package); None for a module from outside."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def imports(module, path, known):
    """{imported module: whether only inside functions} for one module's source."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    is_package = path.endswith("__init__.py")
    here = module.split(".") if is_package else module.split(".")[:-1]
    found = {}

    def add(name, lazy):
        target = resolve(name, known)
        if target is None and module.startswith(SCRIPTS + "/"):
            target = resolve(f"{SCRIPTS}/{name}", known)  # a script beside this one
        if target is not None and target != module:
            found[target] = found.get(target, True) and lazy

    def visit(node, lazy):
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                               ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    add(alias.name, lazy)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = here[:len(here) - child.level + 1]
                    prefix = ".".join(base + ([child.module] if child.module else []))
                else:
                    prefix = child.module
                for alias in child.names:
                    add(f"{prefix}.{alias.name}", lazy)  # a submodule, or a name in prefix
            elif isinstance(child, ast.Constant) and isinstance(child.value, str) and \
                    child.value.startswith(PACKAGE + ".") and child.value in known:
                add(child.value, True)  # a module named to be imported when it is needed
            visit(child, inner)

    visit(tree, False)
    return found


def graph():
    known = modules()
    return {m: imports(m, p, known) for m, p in sorted(known.items())}


def circles(edges):
    """The strongly connected sets of two or more modules (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10_000)
    for v in edges:
        if v not in index:
            connect(v)
    return sorted(out)


def layer(module):
    """The index in LAYERS of a certify module (a subpackage's modules are its layer's), or
    None for what is not in certify."""
    if not module.startswith(PACKAGE + "."):
        return None
    top = module.split(".")[1]
    for i, (_, names) in enumerate(LAYERS):
        if top in names:
            return i
    return len(LAYERS)  # in no layer: a fault of its own, below


def step(module):
    """(folder, index in INSIDE[folder]) of a certify module in a folder with an order of its
    own, (folder, None) for one in none of its steps, or None for a module of no such folder."""
    parts = module.split(".")
    if parts[0] != PACKAGE or len(parts) < 3 or parts[1] not in INSIDE:
        return None
    folder = parts[1]
    for i, names in enumerate(INSIDE[folder]):
        if parts[2] in names:
            return folder, i
    return folder, None


def faults(edges):
    """Lines naming what the graph must not have."""
    found = [f"circle: {' <-> '.join(c)}" for c in circles(edges)]
    for m, targets in edges.items():
        if layer(m) == len(LAYERS):
            found.append(f"{m} is in none of the layers (LAYERS)")
        for t in sorted(targets):
            if layer(m) is not None and layer(t) is not None and layer(t) > layer(m) and \
                    t.split(".")[:2] != m.split(".")[:2]:
                found.append(f"upward: {m} ({LAYERS[layer(m)][0]}) imports {t} "
                             f"({LAYERS[layer(t)][0]})")
        if step(m) is not None and step(m)[1] is None:
            found.append(f"{m} is in none of the steps of its folder (INSIDE)")
        for t in sorted(targets):
            here, there = step(m), step(t)
            if here and there and here[0] == there[0] and None not in (here[1], there[1]) and \
                    there[1] >= here[1]:
                found.append(f"inside {here[0]}/: {m} imports {t}, of "
                             f"{'its own step' if there[1] == here[1] else 'a later step'} "
                             f"(INSIDE)")
        if CLI in targets and m not in (f"{PACKAGE}.__main__",):
            found.append(f"upward into the command line: {m} imports {CLI}")
        if REFERENCE in targets and m != FACE and not m.startswith(SCRIPTS):
            found.append(f"{m} imports the reference engine ({REFERENCE}) directly")
    return found


def short(m):
    return m[len(PACKAGE) + 1:] if m.startswith(PACKAGE + ".") else m


def main(argv=None):
    p = argparse.ArgumentParser(description="Print certify's import graph, read with ast.")
    p.add_argument("--dot", action="store_true", help="as a Graphviz digraph")
    p.add_argument("--check", action="store_true", help="only the faults (exit 1 if any)")
    args = p.parse_args(argv)
    g = graph()
    edges = {m: set(t) for m, t in g.items()}
    problems = faults(edges)
    if args.dot:
        print("digraph certify {\n  rankdir=BT;")
        for m, targets in g.items():
            for t, lazy in sorted(targets.items()):
                style = ' [style=dashed]' if lazy else ""
                print(f'  "{short(m)}" -> "{short(t)}"{style};')
        print("}")
    elif not args.check:
        width = max(len(short(m)) for m in g)
        for m, targets in g.items():
            shown = " ".join(short(t) + ("*" if lazy else "") for t, lazy in sorted(
                targets.items()))
            print(f"{short(m):{width}}  -> {shown}" if shown else short(m))
        print(f"\n{len(g)} modules, {sum(len(t) for t in g.values())} imports "
              f"(* only inside a function)")
    if not args.dot:
        for line in problems:
            print(line)
        if not problems:
            print("no circle, nothing imports upward (LAYERS, INSIDE) or the command line, "
                  "nothing but the engine imports the reference search")
    return 1 if problems and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
