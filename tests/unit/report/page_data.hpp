// The data a page of sdscprov carries (its <script id="sdscprov-data"> JSON), parsed, for the unit
// tests that read a page back.
#pragma once

#include <doctest/doctest.h>
#include <rapidjson/document.h>
#include <string>

inline rapidjson::Document page_data(const std::string& page) {
    const std::string open = "<script type=\"application/json\" id=\"sdscprov-data\">";
    auto from = page.find(open);
    REQUIRE(from != std::string::npos);
    from += open.size();
    auto to = page.find("</script>", from);
    rapidjson::Document d;
    d.Parse(page.data() + from, to - from);
    REQUIRE_FALSE(d.HasParseError());
    return d;
}
