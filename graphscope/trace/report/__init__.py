"""The record drawn as text: the headless summary, tensor summaries with Rich, block drawings, Graphviz DOT."""
