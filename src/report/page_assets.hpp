// The HTML page's stylesheet, markup and script: the files of src/report/page/, embedded at build
// time by cmake/embed_page.cmake (the generated page_assets.cpp defines these). Internal to the
// library.
#pragma once

#include <string_view>

namespace sdscprov::page_assets {

std::string_view style();  // page.css: the <style> element's text
std::string_view body();   // page.html: the <body> element's markup before the data and script
std::string_view script(); // page.js: the <script> element's text

} // namespace sdscprov::page_assets
