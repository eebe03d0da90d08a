// The HTML page's escaping: file-borne text can never close the data script or become markup.
#include "sdscprov/report/html.hpp"

#include <doctest/doctest.h>
#include <sstream>

using namespace sdscprov;

TEST_CASE("json_for_script escapes what could end the script or break JavaScript") {
    CHECK(json_for_script(R"(["</script><b>&x"])") ==
          R"(["\u003c/script\u003e\u003cb\u003e\u0026x"])");
    CHECK(json_for_script("[\"a\xE2\x80\xA8"
                          "b\xE2\x80\xA9"
                          "c\"]") == R"(["a\u2028b\u2029c"])");
    CHECK(json_for_script("[\"\xE2\x80\xA7\"]") == "[\"\xE2\x80\xA7\"]"); // other U+20xx kept
}

TEST_CASE("html_escape escapes the five markup characters") {
    CHECK(html_escape("a<b>&\"'c") == "a&lt;b&gt;&amp;&quot;&#39;c");
}

TEST_CASE("the page embeds its data once, escaped, and is the same bytes every time") {
    std::ostringstream a;
    std::ostringstream b;
    write_html_page(a, "t<", R"({"x":"</script>"})");
    write_html_page(b, "t<", R"({"x":"</script>"})");
    CHECK(a.str() == b.str());
    CHECK(a.str().find("<title>t&lt;</title>") != std::string::npos);
    CHECK(a.str().find(R"({"x":"\u003c/script\u003e"})") != std::string::npos);
    CHECK(a.str().find("</script>\"") == std::string::npos);
}
