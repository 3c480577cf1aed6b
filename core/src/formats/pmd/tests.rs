// tests come next
