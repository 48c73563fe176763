# The value of md-0's taint.
s/value: batch$/value: gpu/
