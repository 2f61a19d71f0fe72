"""Tests of purezmq's public vocabulary: constants, errors, versions, options."""
