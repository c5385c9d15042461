"""Runs Python snippets (as copied from the calculator) in one interpreter, so torch is imported once.

Reads a JSON list of scripts on stdin; writes a JSON list of {"stdout": ..., "error": ...} on
stdout, one per script, in order. Each script runs as __main__ in a namespace of its own.
With --without-torch, torch cannot be imported (as where only NumPy is installed), and every
warning is an error (the NumPy export must make no nan on the way).
"""
import contextlib
import io
import json
import sys
import traceback


def run(index, source):
    out = io.StringIO()
    error = None
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(source, f'<snippet {index + 1}>', 'exec'), {'__name__': '__main__'})
    except Exception:  # reported, with the snippet's own line numbers, for the test to show
        error = traceback.format_exc()
    return {'stdout': out.getvalue(), 'error': error}


if __name__ == '__main__':
    if '--without-torch' in sys.argv:
        import warnings
        import numpy  # noqa: F401  (fails here, once, when python3-numpy is missing)
        sys.modules['torch'] = None  # `import torch` now raises ImportError
        warnings.simplefilter('error')
    else:
        import torch  # noqa: F401  (fails here, once, when python3-torch is missing)

    scripts = json.load(sys.stdin)
    json.dump([run(i, s) for i, s in enumerate(scripts)], sys.stdout)
