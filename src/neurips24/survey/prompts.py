"""Prompts and answer tokens (paper §2; official ``surveying_llms/questions.py``).

Plain format, as the paper asks base models::

    Question: {text}
    A. {choice shown first}
    B. {choice shown second}
    ...
    Answer:

and the answer is read from the next-token probabilities of the letters *with a leading space* (' A', ' B', ...;
the id is the last id of the encoding of ' ' + letter). For chat models the paper's variants wrap the question
in the model's template and read the letters without the space; :func:`letter_prefix` says which, and
:func:`letter_token_ids` refuses letters that are not one token.
"""
from __future__ import annotations

import string

import numpy as np

from .questionnaire import Question

LETTERS = string.ascii_uppercase
FORMATS = ("plain", "chat")


def _check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")
    return fmt


def format_prompt(question: Question, order=None) -> str:
    """The plain prompt of ``question`` with its choices shown in ``order``.

    Parameters
    ----------
    question : :class:`~neurips24.survey.questionnaire.Question`.
    order : (k,) int, order[r] = index of the choice shown at position r (default: the questionnaire's order).

    Returns
    -------
    str ending in 'Answer:' (no trailing space: the answer token brings its own).

    Raises
    ------
    TypeError if ``question`` is not a Question; ValueError if ``order`` is not a permutation of 0..k-1 or
    k > 26.
    """
    if not isinstance(question, Question):
        raise TypeError(f"question must be a Question (see survey.get_question), got {type(question).__name__}")
    k = question.k
    if k > len(LETTERS):
        raise ValueError(f"at most {len(LETTERS)} choices can be lettered, got k = {k}")
    order = np.arange(k) if order is None else np.asarray(order)
    if order.shape != (k,) or not np.array_equal(np.sort(order), np.arange(k)):
        raise ValueError(f"order must be a permutation of 0..{k - 1}, got {order.tolist()}")
    lines = [f"Question: {question.text}"]
    lines += [f"{LETTERS[r]}. {question.choices[int(c)]}" for r, c in enumerate(order)]
    return "\n".join(lines) + "\nAnswer:"


def chat_prompt(tokenizer, prompt: str) -> str:
    """``prompt`` as the user turn of the tokenizer's chat template, ending where the assistant's answer starts."""
    if not isinstance(prompt, str):
        raise TypeError(f"prompt must be a str, got {type(prompt).__name__}")
    if getattr(tokenizer, "chat_template", None) is None:
        raise ValueError("this tokenizer has no chat template")
    return tokenizer.apply_chat_template([{"role": "user", "content": prompt}], tokenize=False,
                                         add_generation_prompt=True)


def letter_prefix(fmt: str) -> str:
    """' ' for the plain format (the answer follows 'Answer:'), '' for the chat format (the turn starts fresh)."""
    return " " if _check_format(fmt) == "plain" else ""


def letter_token_ids(tokenizer, k: int, prefix: str = " ") -> np.ndarray:
    """Token ids of the first k answer letters, each ``prefix + letter`` (official rule: the encoding's last id).

    Parameters
    ----------
    tokenizer : a transformers tokenizer.
    k : number of letters, 2 <= k <= 26.
    prefix : ' ' (plain prompt) or '' (chat prompt).

    Returns
    -------
    (k,) int64 distinct ids.

    Raises
    ------
    ValueError if k is out of range, or some ``prefix + letter`` is not exactly one token (its probability
    would not be a next-token probability), or two letters share an id.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an int, got {type(k).__name__}")
    if not 2 <= k <= len(LETTERS):
        raise ValueError(f"k must be in [2, {len(LETTERS)}], got {k}")
    ids = []
    for letter in LETTERS[:k]:
        enc = tokenizer.encode(prefix + letter, add_special_tokens=False)
        if len(enc) != 1:
            raise ValueError(f"answer letter {prefix + letter!r} is {len(enc)} tokens {enc}, not one: "
                             "its next-token probability is not defined")
        ids.append(enc[-1])
    if len(set(ids)) != k:
        raise ValueError(f"answer letters share token ids: {ids}")
    return np.array(ids, dtype=np.int64)
