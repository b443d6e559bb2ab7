"""Files and images attached to a message: `@path` references, their completion, chips and paste."""
