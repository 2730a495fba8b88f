"""A tiny character-level language model: guess the next character from the current one.

Each character is looked up in an embedding table, passed through one tanh hidden layer, and
scored against every character of the vocabulary (a bigram model with an MLP in between).
Trained with CrossEntropyLoss and Adam on the short text below, its loss falls well below
ln(V), the loss of guessing uniformly among the V characters; then it writes a few lines.

Run it with:  python samples/char_bigram_mlp.py
"""

import math

import graphscope as gs
from graphscope import nn, optim

TEXT = """\
the river runs down from the hills in the spring, when the snow on the high fields melts and
the water comes over the stones in a hurry. in the summer it is slow and warm, and the children
sit on the bank with their feet in it and talk about nothing at all. the old miller says the
river has a mind of its own, and that it remembers every boat that ever went down it. in the
autumn the leaves fall on the water and ride it to the sea, red and gold and brown, and the
fish rise to look at them and go down again. in the winter the edges freeze and the middle runs
on, dark and quiet, under a white sky. people come and go along the path beside it, and the
river does not mind them; it has somewhere to be, and it is always on the way there.
"""


def main(steps=300, verbose=True):
    gs.manual_seed(0)
    vocab = sorted(set(TEXT))
    index = {ch: i for i, ch in enumerate(vocab)}
    ids = gs.tensor([index[ch] for ch in TEXT])
    inputs, targets = ids[:-1], ids[1:]  # each character predicts the one after it

    model = nn.Sequential(
        nn.Embedding(len(vocab), 24),
        nn.Linear(24, 64),
        nn.Tanh(),
        nn.Linear(64, len(vocab)),
    )
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.02)
    uniform = math.log(len(vocab))
    if verbose:
        print(f"{len(TEXT)} characters, vocabulary of {len(vocab)}: uniform guessing loss ln {len(vocab)} = {uniform:.4f}")

    losses = []
    for step in range(steps):
        loss = loss_fn(model(inputs), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if verbose and (step % 25 == 0 or step == steps - 1):
            print(f"step {step:3d}  loss {loss.item():.4f}")

    # Write: start from "t" and repeatedly sample the next character from the model's softmax.
    model.eval()
    current, written = index["t"], ["t"]
    with gs.no_grad():
        for _ in range(120):
            probs = model(gs.tensor([current])).softmax(dim=-1)[0]
            current = gs.multinomial(probs, num_samples=1).item()  # one draw, weighted by probs
            written.append(vocab[current])
    sample = "".join(written)
    if verbose:
        print("sample:", sample.replace("\n", " "))
    return {"losses": losses, "uniform_loss": uniform, "sample": sample}


if __name__ == "__main__":
    import sys

    main(*map(int, sys.argv[1:2]))  # an optional argument: the number of steps (the tests run few)
