import type { Brand } from './timeline';

/**
 * Well-known brand wordmarks the logo extractor looks for in on-screen text. Logos proper (marks
 * without words) need a visual model (CLIP); wordmarks are what OCR can find. Extend freely: each
 * entry is the name shown, then the spellings that appear on screen.
 */
export const BRANDS: readonly Brand[] = [
  ['Adidas', ['adidas']], ['Amazon', ['amazon']], ['Apple', ['apple']], ['Audi', ['audi']], ['BMW', ['bmw']],
  ['Canon', ['canon']], ['Chanel', ['chanel']], ['Cisco', ['cisco']], ['Coca-Cola', ['coca-cola', 'coca cola', 'coke']],
  ['Dell', ['dell']], ['DHL', ['dhl']], ['Disney', ['disney']], ['eBay', ['ebay']], ['Facebook', ['facebook']],
  ['FedEx', ['fedex']], ['Ferrari', ['ferrari']], ['Ford', ['ford']], ['Google', ['google']], ['Gucci', ['gucci']],
  ['Heineken', ['heineken']], ['Honda', ['honda']], ['HP', ['hewlett-packard', 'hewlett packard']], ['Hyundai', ['hyundai']],
  ['IBM', ['ibm']], ['IKEA', ['ikea']], ['Instagram', ['instagram']], ['Intel', ['intel']], ['KFC', ['kfc']],
  ['Lego', ['lego']], ['LinkedIn', ['linkedin']], ['Louis Vuitton', ['louis vuitton']], ["McDonald's", ["mcdonald's", 'mcdonalds']],
  ['Mercedes-Benz', ['mercedes-benz', 'mercedes benz', 'mercedes']], ['Microsoft', ['microsoft']], ['Netflix', ['netflix']],
  ['Nestlé', ['nestlé', 'nestle']], ['Nike', ['nike']], ['Nintendo', ['nintendo']], ['Nissan', ['nissan']], ['Nokia', ['nokia']],
  ['Oracle', ['oracle']], ['Panasonic', ['panasonic']], ['PayPal', ['paypal']], ['Pepsi', ['pepsi']], ['Philips', ['philips']],
  ['Porsche', ['porsche']], ['Puma', ['puma']], ['Red Bull', ['red bull', 'redbull']], ['Rolex', ['rolex']],
  ['Samsung', ['samsung']], ['Shell', ['shell']], ['Siemens', ['siemens']], ['Sony', ['sony']], ['Spotify', ['spotify']],
  ['Starbucks', ['starbucks']], ['Tesla', ['tesla']], ['TikTok', ['tiktok']], ['Toyota', ['toyota']], ['Twitter', ['twitter']],
  ['Uber', ['uber']], ['UPS', ['ups']], ['Visa', ['visa']], ['Volkswagen', ['volkswagen', 'vw']], ['Walmart', ['walmart']],
  ['YouTube', ['youtube']], ['Zara', ['zara']],
].map(([name, names]) => ({ name: name as string, names: names as string[] }));
