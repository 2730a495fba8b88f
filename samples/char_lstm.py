"""A tiny character-level LSTM language model: read a text, then guess each next character.

The text below is cut into windows of SEQ_LEN characters; each window's characters go through an
embedding table and an LSTM, whose output at every step is scored against the vocabulary to
predict the character that follows. Unlike the bigram sample, the LSTM carries a memory along
the window, so it learns spellings, not only which letter tends to follow which. One epoch is
one Adam step on all windows at once; the loss starts near ln(V), uniform guessing among the V
characters, and falls far below it. Then the model writes a line, one character at a time.

Run it with:  python samples/char_lstm.py
"""

import math

import graphscope as gs
from graphscope import nn, optim

TEXT = """\
the cat sat on the mat and the dog sat on the log.
the cat saw the dog and the dog saw the cat.
the cat ran to the mat and the dog ran to the log.
the dog sat on the mat and the cat sat on the log.
"""
SEQ_LEN = 16


class CharLSTM(nn.Module):
    """Embedding -> LSTM -> Linear: a score for every character at every step."""

    def __init__(self, vocab_size, embed=16, hidden=64):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed)
        self.lstm = nn.LSTM(embed, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab_size)

    def forward(self, ids, state=None):
        output, state = self.lstm(self.embed(ids), state)
        return self.head(output), state


def main(epochs=40, verbose=True):
    gs.manual_seed(0)
    vocab = sorted(set(TEXT))
    index = {ch: i for i, ch in enumerate(vocab)}
    ids = [index[ch] for ch in TEXT]
    starts = range(0, len(ids) - SEQ_LEN, SEQ_LEN // 2)  # overlapping windows
    inputs = gs.tensor([ids[s:s + SEQ_LEN] for s in starts])  # (windows, SEQ_LEN)
    targets = gs.tensor([ids[s + 1:s + SEQ_LEN + 1] for s in starts])  # the same, one character on

    model = CharLSTM(len(vocab))
    loss_fn = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.02)
    uniform = math.log(len(vocab))
    if verbose:
        print(f"{len(TEXT)} characters in {len(starts)} windows of {SEQ_LEN}, vocabulary of {len(vocab)}: "
              f"uniform guessing loss ln {len(vocab)} = {uniform:.4f}")

    losses = []
    for epoch in range(epochs):
        logits, _ = model(inputs)
        loss = loss_fn(logits.reshape(-1, len(vocab)), targets.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if verbose:
            print(f"epoch {epoch:2d}  loss {loss.item():.4f}")

    # Write: feed "the " and then each sampled character back in, carrying the LSTM's state.
    model.eval()
    written = list("the ")
    with gs.no_grad():
        logits, state = model(gs.tensor([[index[ch] for ch in written]]))
        for _ in range(60):
            probs = logits[0, -1].softmax(dim=-1).tolist()
            u, total = gs.rand(1).item(), 0.0
            for current, p in enumerate(probs):
                total += p
                if u < total:
                    break
            written.append(vocab[current])
            logits, state = model(gs.tensor([[current]]), state)
    sample = "".join(written)
    if verbose:
        print("sample:", sample.replace("\n", " / "))
    return {"losses": losses, "uniform_loss": uniform, "sample": sample}


if __name__ == "__main__":
    import sys

    main(*map(int, sys.argv[1:2]))  # an optional argument: the number of epochs (the tests run few)
