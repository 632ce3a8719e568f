/** TEST FIXTURE: a worker module that fails while loading, as one with a missing dependency would. */
throw new Error('broken pipeline worker module');
