"""The course's step-throughs: events recorded as they happen, drawn frame by frame.

One module a story, each drawn with `helpers.stepper`:

- `helpers.stories.objects`  notebook 02: lesson 8's layers and the tensor objects
                             they hold, through one forward and one backward pass
- `helpers.stories.shares`   notebook 04: a reused weight's shares arriving, .grad, one step
- `helpers.stories.tape`     notebook 05: a tape's records, then its backward newest first,
                             each += into .g, beside autograd's node order
- `helpers.stories.ranks`    notebook 07: two ranks of DDP, one step on one timeline
"""
