from intent_ls.common.json_lines import objects


def test_objects_keeps_each_object_line_and_passes_over_the_rest():
    data = b'{"a": 1}\n{"torn": \n[1, 2]\n\n{"b": "\xc3\xa9"}\r\nnot json\n'
    assert list(objects(data)) == [{"a": 1}, {"b": "é"}]


def test_objects_of_nothing_is_nothing():
    assert list(objects(b"")) == []
