"""One backward step or optimizer step explained with its numbers, and `graphscope explain`'s report."""
