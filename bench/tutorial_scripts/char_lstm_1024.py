"""The shape of a character LSTM language model with 1024 hidden units (the char-rnn style), written here.

Embedding(65, 128) -> nn.LSTM(128, 1024, batch_first=True) -> Linear(1024, 65), batches of 16 windows of 32
characters from a 200k-character text, the state carried across batches and detached (truncated backprop
through time), F.cross_entropy, Adam, clip_grad_norm_, then 200 characters sampled one at a time. The text
is made here (a fixed pseudo-random one). The step count is the first argument.
"""

import random
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 300
BATCH, SEQ, HIDDEN, EMBED = 16, 32, 1024, 128

torch.manual_seed(0)
alphabet = " \n!$&',-.3:;?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
text = "".join(random.Random(0).choices(alphabet, k=200_000))
chars = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)


class CharLSTM(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embed = nn.Embedding(vocab, EMBED)
        self.lstm = nn.LSTM(EMBED, HIDDEN, batch_first=True)
        self.head = nn.Linear(HIDDEN, vocab)

    def forward(self, ids, state=None):
        out, state = self.lstm(self.embed(ids), state)
        return self.head(out), state


model = CharLSTM(len(chars))
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
stride = len(data) // BATCH
starts = torch.arange(BATCH) * stride
state = None
for step in range(STEPS):
    offset = (step * SEQ) % (stride - SEQ - 1)
    rows = (starts + offset).unsqueeze(1) + torch.arange(SEQ + 1)
    chunk = data[rows]
    x, y = chunk[:, :-1], chunk[:, 1:]
    if state is not None:
        state = tuple(s.detach() for s in state)
    logits, state = model(x, state)
    loss = F.cross_entropy(logits.reshape(-1, len(chars)), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    optimizer.step()
    if step % 50 == 0:
        print(f"step {step} loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    ids = torch.tensor([[stoi["T"]]])
    state, written = None, []
    for _ in range(200):
        logits, state = model(ids, state)
        ids = torch.multinomial(F.softmax(logits[0, -1], dim=-1), 1).view(1, 1)
        written.append(chars[ids.item()])
print("".join(written))
