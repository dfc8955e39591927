"""Where a warning points: the line of the user's call of each public face."""

import inspect
import warnings


def assert_warned_at_the_call(faces, words, category=Warning, once=False):
    """Call every face of ``faces`` (name -> a lambda that makes one call on its first
    line) and fail unless it warned (``category``, with ``words`` in the message; with
    ``once``, exactly one such warning) and every such warning names the file and
    first line of its lambda: the user's call."""
    for name, face in faces.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            face()
        got = [(w.filename, w.lineno) for w in caught
               if issubclass(w.category, category) and words in str(w.message)]
        want = (inspect.getsourcefile(face), face.__code__.co_firstlineno)
        assert got and set(got) == {want}, (name, got, want)
        assert len(got) == 1 or not once, (name, got)
