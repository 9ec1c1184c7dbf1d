//===- JsonText.h - JSON strings as written -----------------------*- C++
//-*-===//
//
// Private to the translation library: import quotes strings in messages as
// export writes them.
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_TRANSLATE_JSONTEXT_H
#define SHARDC_TRANSLATE_JSONTEXT_H

#include <nlohmann/json.hpp>

#include <string>

namespace shardc {
namespace detail {

/// A JSON string as it would be written, quoted and escaped; invalid UTF-8
/// is replaced rather than thrown about.
inline std::string quoteJson(const std::string &s) {
  return nlohmann::json(s).dump(-1, ' ', false,
                                nlohmann::json::error_handler_t::replace);
}

} // namespace detail
} // namespace shardc

#endif // SHARDC_TRANSLATE_JSONTEXT_H
